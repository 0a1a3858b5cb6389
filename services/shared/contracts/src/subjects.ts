import type { ServiceName } from './services.ts';

/** Request/reply subject of a service action: `svc.<service>.<action>`. */
export const svc = (service: ServiceName, action: string): string => `svc.${service}.${action}`;

