import { CAMPAIGN_SUMMARY_MAX, GROUP_NAME_MAX, tooLongMessage } from '@chronicler/contracts';
import { ServiceError } from '@chronicler/kit';

export const groupNotFound = (): ServiceError => new ServiceError('not_found', 'Group not found');
export const bad = (message: string): ServiceError => new ServiceError('bad_request', message);

/** A group name, trimmed; blank is refused with the specification's words. */
export function checkGroupName(name: string | undefined): string {
  const trimmed = (name ?? '').trim();
  if (!trimmed) throw bad('Group name cannot be empty.');
  if (trimmed.length > GROUP_NAME_MAX) throw bad(tooLongMessage('Group name', GROUP_NAME_MAX));
  if (trimmed.includes('\u0000')) throw bad('Group name cannot contain NUL characters');
  return trimmed;
}

export function checkGroupSummary(summary: string): void {
  if (summary.length > CAMPAIGN_SUMMARY_MAX) throw bad(tooLongMessage('Summary', CAMPAIGN_SUMMARY_MAX));
  if (summary.includes('\u0000')) throw bad('Summary cannot contain NUL characters');
}
