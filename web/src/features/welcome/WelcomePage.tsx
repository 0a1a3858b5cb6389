import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { getAppConfig } from '../../api/config.ts';
import { queryKeys } from '../../app/query-client.ts';
import { BOT_COMMANDS } from './bot-commands.ts';

const INVITE_URL_MISSING = 'Invite URL is not configured. Please set the invite URL setting.';

function InviteButton() {
  const config = useQuery({ queryKey: queryKeys.appConfig, queryFn: getAppConfig });

  if (config.isPending) {
    return (
      <button type="button" className="button button-discord button-large" disabled aria-busy="true">
        Add Chronicler to Discord
      </button>
    );
  }
  if (config.isError) {
    return (
      <div className="invite-block">
        <button type="button" className="button button-discord button-large" disabled>
          Add Chronicler to Discord
        </button>
        <p className="notice notice-error" role="alert">
          The invite link could not be loaded.{' '}
          <button type="button" className="link-button" onClick={() => void config.refetch()}>
            Try again
          </button>
        </p>
      </div>
    );
  }

  const inviteUrl = config.data.bot_invite_url;
  if (!inviteUrl) {
    return (
      <div className="invite-block">
        <button
          type="button"
          className="button button-discord button-large"
          disabled
          aria-describedby="invite-missing"
        >
          Add Chronicler to Discord
        </button>
        <p id="invite-missing" className="notice notice-warning">
          {INVITE_URL_MISSING}
        </p>
      </div>
    );
  }
  return (
    <a
      className="button button-discord button-large"
      href={inviteUrl}
      target="_blank"
      rel="noopener noreferrer"
    >
      Add Chronicler to Discord
      <span className="visually-hidden"> (opens in a new tab)</span>
    </a>
  );
}

function CommunityLink() {
  const config = useQuery({ queryKey: queryKeys.appConfig, queryFn: getAppConfig });
  const url = config.data?.community_url;
  if (!url) return null;
  return (
    <section className="card" aria-labelledby="community-title">
      <h2 id="community-title" className="card-title">
        Join the community
      </h2>
      <p>Questions, ideas or a bug to report? Our community server is the place to ask.</p>
      <a className="button button-secondary" href={url} target="_blank" rel="noopener noreferrer">
        Join our community server
        <span className="visually-hidden"> (opens in a new tab)</span>
      </a>
    </section>
  );
}

export function WelcomePage() {
  return (
    <div className="page page-narrow">
      <header className="page-header">
        <h1 className="page-title">Getting Started</h1>
        <p className="page-lead">
          Chronicler records your tabletop sessions from a Discord voice channel and turns them into
          transcripts. Three steps get you going.
        </p>
      </header>

      <ol className="steps">
        <li className="card step">
          <h2 className="card-title">
            <span className="step-number" aria-hidden="true">
              1
            </span>
            Invite the bot to your Discord server
          </h2>
          <p>Add the Chronicler bot to the server where your group plays.</p>
          <InviteButton />
        </li>

        <li className="card step">
          <h2 className="card-title">
            <span className="step-number" aria-hidden="true">
              2
            </span>
            Record a session with the bot&apos;s commands
          </h2>
          <p>Use these slash commands in Discord while you are in a voice channel:</p>
          <dl className="command-list">
            {BOT_COMMANDS.map(({ command, description }) => (
              <div key={command} className="command-row">
                <dt>
                  <code>{command}</code>
                </dt>
                <dd>{description}</dd>
              </div>
            ))}
          </dl>
        </li>

        <li className="card step">
          <h2 className="card-title">
            <span className="step-number" aria-hidden="true">
              3
            </span>
            Come back after the recording ends
          </h2>
          <p>
            When a recording ends, its transcript appears here. Come back to group sessions into campaigns,
            summarise them and chat about them with the AI.
          </p>
          <div className="button-row">
            <Link to="/" className="button button-primary">
              Go to your dashboard
            </Link>
          </div>
        </li>
      </ol>

      <section className="card" aria-labelledby="past-session-title">
        <h2 id="past-session-title" className="card-title">
          Already played without the bot?
        </h2>
        <p>Add a past session by hand, from its details, a pasted transcript or an audio recording.</p>
        <Link to="/add-session" className="button button-secondary">
          Add a past session
        </Link>
      </section>

      <CommunityLink />
    </div>
  );
}
