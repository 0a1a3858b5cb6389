import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router-dom';
import { listDiscordServers } from '../../api/discord-servers.ts';
import { errorDetail } from '../../api/http.ts';
import { Spinner } from '../../components/Spinner.tsx';
import { ServerSettingsForm } from './ServerSettingsForm.tsx';
import './discord-servers.css';

const discordServersKey = ['discord', 'servers'] as const;

/**
 * The Discord servers the user manages (owner, Administrator or Manage Server, as Discord said
 * at their last sign-in) and, for the one opened, the voice bot's settings there.
 */
export function DiscordServersPage() {
  const { guildId } = useParams();
  const servers = useQuery({ queryKey: discordServersKey, queryFn: listDiscordServers });
  const open = servers.data?.find((s) => s.id === guildId);
  return (
    <div className="page page-narrow">
      <header className="page-header">
        <h1 className="page-title">Discord servers</h1>
        <p className="page-lead">
          How the Chronicler bot records in the servers you manage: consent, announcements, who may start, and
          recording by itself.
        </p>
      </header>
      {servers.isPending && <Spinner label="Loading your servers" />}
      {servers.isError && (
        <p className="notice notice-error" role="alert">
          {errorDetail(servers.error, 'Failed to load your Discord servers')}
        </p>
      )}
      {servers.data && servers.data.length === 0 && (
        <p className="notice">
          You manage no Discord server we know of. Sign in with Discord again after adding the bot to a server
          where you have Manage Server.
        </p>
      )}
      {servers.data && servers.data.length > 0 && (
        <nav className="card discord-server-list" aria-label="Your Discord servers">
          <ul>
            {servers.data.map((s) => (
              <li key={s.id}>
                <Link
                  to={`/discord-servers/${s.id}`}
                  className={s.id === guildId ? 'discord-server active' : 'discord-server'}
                  aria-current={s.id === guildId ? 'page' : undefined}
                >
                  {s.name}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      )}
      {guildId && servers.data && !open && (
        <p className="notice notice-error" role="alert">
          That server is not one you manage.
        </p>
      )}
      {open && <ServerSettingsForm key={open.id} guild={open} />}
    </div>
  );
}
