import type { ServiceName } from './services.ts';

/** Request/reply subject of a service action: `svc.<service>.<action>`. */
export const svc = (service: ServiceName, action: string): string => `svc.${service}.${action}`;

/** Event subject: `evt.<domain>.<past-tense>`, e.g. `evt.auth.session-revoked`. */
export const evt = (domain: string, event: string): string => `evt.${domain}.${event}`;
