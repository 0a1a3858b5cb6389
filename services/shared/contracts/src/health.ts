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

/**
 * `svc.<service>.state`: answered by the services in SERVICES_WITH_STATE. `idle` means the
 * service runs and answers but has nothing to do by configuration (the voice bot without a
 * DISCORD_BOT_TOKEN); it does not make the system degraded. `detail` says why.
 */
export const ServiceStateSchema = Type.Object({
  status: Type.Union([Type.Literal('up'), Type.Literal('idle')]),
  detail: Type.Optional(Type.String({ maxLength: 200 })),
});
export type ServiceState = Static<typeof ServiceStateSchema>;
export const serviceStateRpc = (service: ServiceName) =>
  rpc(service, 'state', Type.Object({}), ServiceStateSchema);
/** The services /api/health also asks for their state (the others are 'up' when they answer ping). */
export const SERVICES_WITH_STATE: readonly ServiceName[] = ['voice-bot'];

/**
 * Coordination key (Redis in the cluster) a voice-bot replica refreshes while it holds a live
 * session: the transcript service's stale-session sweep leaves a session alone while it exists.
 */
export const liveSessionHeartbeatKey = (transcriptId: string): string => `live:heartbeat:${transcriptId}`;

/** GET /api/health */
export const HealthResponseSchema = Type.Object({
  /** 'ok' when every service is up or idle. */
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  services: Type.Array(
    Type.Object({
      name: ServiceNameSchema,
      status: Type.Union([Type.Literal('up'), Type.Literal('idle'), Type.Literal('down')]),
      version: Type.String(),
      /** Why a service is idle, e.g. 'no DISCORD_BOT_TOKEN'. */
      detail: Type.Optional(Type.String()),
    }),
  ),
  /**
   * Who transcribes uploads and the bot ('deepgram', 'assemblyai' or 'openai' for any
   * OpenAI-compatible server); null: nobody (uploads refused); absent when the transcript
   * service did not answer.
   */
  speech_provider: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
export type HealthResponse = Static<typeof HealthResponseSchema>;

/** Body of every error answer from the gateway: the specification's `{"detail": "..."}`. */
export const ErrorResponseSchema = Type.Object({ detail: Type.String() });
export type ErrorResponse = Static<typeof ErrorResponseSchema>;
