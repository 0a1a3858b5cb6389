import {
  serverSettingsChangedEvent,
  type AutoRecordRule,
  type getServerSettingsRpc,
  type memberConsentsRpc,
  type putServerSettingsRpc,
  type RpcRequest,
  type ServerSettings,
  type setMemberConsentRpc,
} from '@chronicler/contracts';
import type { Bus, Logger } from '@chronicler/kit';
import type { GroupStore } from '../db/store.ts';
import { bad } from '../handlers/group-errors.ts';
import type { ServerSettingsStore } from './settings-store.ts';

function validTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** A group named in the settings must be one of the editor's groups. */
async function checkGroup(groups: GroupStore, editorId: string | null, groupId: string, what: string) {
  if (!editorId) throw bad(`${what}: sign in to Chronicler with Discord to choose a group.`);
  if (!(await groups.exists(editorId, groupId))) throw bad(`${what}: no group of yours has that id.`);
}

async function checkRules(groups: GroupStore, editorId: string | null, rules: AutoRecordRule[]) {
  const channels = new Set<string>();
  for (const [i, r] of rules.entries()) {
    const what = `Auto-record rule ${i + 1}`;
    if (channels.has(r.channel_id)) throw bad(`${what}: another rule already watches that channel.`);
    channels.add(r.channel_id);
    if ((r.from === null) !== (r.to === null))
      throw bad(`${what}: give both a start and an end time, or neither.`);
    if (r.from !== null && r.from === r.to) throw bad(`${what}: the start and end times are the same.`);
    if (!validTimezone(r.timezone)) throw bad(`${what}: unknown time zone “${r.timezone}”.`);
    if (r.group_id !== null) await checkGroup(groups, editorId, r.group_id, what);
  }
}

/** svc.group.server-settings */
export const getServerSettings =
  (store: ServerSettingsStore) =>
  (req: RpcRequest<typeof getServerSettingsRpc>): Promise<ServerSettings> =>
    store.get(req.guild_id);

/**
 * svc.group.put-server-settings: checks the whole change before storing any of it, stores it,
 * and tells the bot (evt.discord.settings-changed) to read the settings afresh.
 */
export const putServerSettings =
  (store: ServerSettingsStore, groups: GroupStore, bus: Bus, logger: Logger) =>
  async (req: RpcRequest<typeof putServerSettingsRpc>): Promise<ServerSettings> => {
    const c = req.change;
    if (c.default_group_id) await checkGroup(groups, req.editor_id, c.default_group_id, 'Default group');
    if (c.auto_record) await checkRules(groups, req.editor_id, c.auto_record);
    if (c.starter_roles && new Set(c.starter_roles).size !== c.starter_roles.length) {
      throw bad('A role is listed twice among the roles that may start recordings.');
    }
    const current = await store.get(req.guild_id);
    const next: ServerSettings = {
      ...current,
      ...Object.fromEntries(Object.entries(c).filter(([, v]) => v !== undefined)),
    };
    await store.put(next);
    await bus
      .publish(serverSettingsChangedEvent.subject, { guild_id: req.guild_id })
      .catch((err: unknown) =>
        logger.warn({ err }, 'settings change not announced; the bot reads it on expiry'),
      );
    return store.get(req.guild_id);
  };

/** svc.group.member-consents */
export const memberConsents =
  (store: ServerSettingsStore) =>
  (req: RpcRequest<typeof memberConsentsRpc>): Promise<{ in: string[]; out: string[] }> =>
    store.consents(req.guild_id);

/** svc.group.set-member-consent */
export const setMemberConsent =
  (store: ServerSettingsStore) =>
  async (req: RpcRequest<typeof setMemberConsentRpc>): Promise<{ ok: true }> => {
    await store.setConsent(req.guild_id, req.user_id, req.choice);
    return { ok: true };
  };
