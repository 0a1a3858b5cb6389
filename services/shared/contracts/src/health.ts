import { Type, type Static } from '@sinclair/typebox';
import { SERVICE_NAMES, type ServiceName } from './services.ts';
import { rpc } from './rpc.ts';

export const ServiceNameSchema = Type.Union(SERVICE_NAMES.map((n) => Type.Literal(n)));

/** A service's answer to `svc.<service>.ping`. */
export const PingReplySchema = Type.Object({
  name: ServiceNameSchema,
  status: Type.Literal('up'),
  version: Type.String(),
  /** Which process answered (host and pid), to tell replicas apart. */
  instance: Type.String(),
});
export type PingReply = Static<typeof PingReplySchema>;

/** `svc.<service>.ping`: every service answers it; the gateway's /api/health calls all ten. */
export const pingRpc = (service: ServiceName) => rpc(service, 'ping', Type.Object({}), PingReplySchema);

/** GET /api/health */
export const HealthResponseSchema = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  services: Type.Array(
    Type.Object({
      name: ServiceNameSchema,
      status: Type.Union([Type.Literal('up'), Type.Literal('down')]),
      version: Type.String(),
    }),
  ),
});
export type HealthResponse = Static<typeof HealthResponseSchema>;

/** Body of every error answer from the gateway: the specification's `{"detail": "..."}`. */
export const ErrorResponseSchema = Type.Object({ detail: Type.String() });
export type ErrorResponse = Static<typeof ErrorResponseSchema>;
