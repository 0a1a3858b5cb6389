import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * One Prometheus registry per process, served at /metrics. Process metrics (CPU, memory,
 * event loop lag, GC) come from prom-client's defaults; bus and HTTP metrics are defined
 * here so every implementation records the same names.
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

export const busRequests = new Counter({
  name: 'chronicler_bus_requests_total',
  help: 'Bus requests sent, by subject and outcome (ok or an error code)',
  labelNames: ['subject', 'outcome'] as const,
  registers: [registry],
});

export const busRequestSeconds = new Histogram({
  name: 'chronicler_bus_request_duration_seconds',
  help: 'Bus request round-trip time, by subject',
  labelNames: ['subject'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry],
});

export const busMessagesPublished = new Counter({
  name: 'chronicler_bus_messages_published_total',
  help: 'Messages published (core and durable), by kind',
  labelNames: ['kind'] as const,
  registers: [registry],
});

export const busDeliveries = new Counter({
  name: 'chronicler_bus_durable_deliveries_total',
  help: 'Durable consumer deliveries, by stream, durable and outcome (ack, nak, dead_letter)',
  labelNames: ['stream', 'durable', 'outcome'] as const,
  registers: [registry],
});

export const httpRequests = new Counter({
  name: 'chronicler_http_requests_total',
  help: 'HTTP requests served, by method, route and status code',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
});

export const httpRequestSeconds = new Histogram({
  name: 'chronicler_http_request_duration_seconds',
  help: 'HTTP request duration, by method and route',
  labelNames: ['method', 'route'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const contentReads = new Counter({
  name: 'chronicler_gateway_content_reads_total',
  help:
    'Reads of one session through the gateway, by what crossed the bus: unchanged (the kept ' +
    'copy was sent), not_modified (a 304: the browser holds that version), first or changed (the ' +
    'content, now kept), recording (a session being recorded, never kept)',
  labelNames: ['result'] as const,
  registers: [registry],
});

export const listReads = new Counter({
  name: 'chronicler_gateway_list_reads_total',
  help:
    'Reads of a page of the session list through the gateway, by what crossed the bus: ' +
    'unchanged (the kept page was sent), not_modified (a 304: the browser holds that version), ' +
    'first or changed (the page, now kept)',
  labelNames: ['result'] as const,
  registers: [registry],
});

export const contentCacheBytes = new Gauge({
  name: 'chronicler_gateway_content_cache_bytes',
  help: 'Bytes of sessions and list pages the gateway keeps to answer reads of unchanged versions (CONTENT_CACHE_MB bounds it)',
  registers: [registry],
});

export const liveSockets = new Gauge({
  name: 'chronicler_live_sockets',
  help: 'Live transcript sockets (socket.io) connected to this process',
  registers: [registry],
});

export const liveEvents = new Counter({
  name: 'chronicler_live_events_total',
  help: 'Live transcript events handed to socket.io rooms, by event name',
  labelNames: ['event'] as const,
  registers: [registry],
});

// ---- bus, handler side and durable consumers -----------------------------------------

export const busHandled = new Counter({
  name: 'chronicler_bus_handled_total',
  help: 'Bus requests answered by this process, by subject pattern and outcome (ok or an error code)',
  labelNames: ['subject', 'outcome'] as const,
  registers: [registry],
});

export const busHandlerSeconds = new Histogram({
  name: 'chronicler_bus_handler_duration_seconds',
  help: 'Time a request handler took, by subject pattern (the server side of chronicler_bus_request_duration_seconds)',
  labelNames: ['subject'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry],
});

export const busConsumerPending = new Gauge({
  name: 'chronicler_bus_consumer_pending',
  help: 'Messages of a durable consumer not yet delivered (JetStream num_pending), polled by each process that consumes it',
  labelNames: ['stream', 'durable'] as const,
  registers: [registry],
});

export const busRedeliveries = new Counter({
  name: 'chronicler_bus_redeliveries_total',
  help: 'Durable deliveries that were not the first of their message (a nak, an ack wait that ran out, a crashed consumer)',
  labelNames: ['stream', 'durable'] as const,
  registers: [registry],
});

// ---- live sessions -------------------------------------------------------------------

export const liveSessionsActive = new Gauge({
  name: 'chronicler_live_sessions_active',
  help: 'Live sessions started and not ended, as the transcript service stores them (every replica reports the same total: use max)',
  registers: [registry],
});

export const liveLinesStored = new Counter({
  name: 'chronicler_live_lines_stored_total',
  help: 'Final live utterances stored as transcript lines (duplicates of a redelivery not counted)',
  registers: [registry],
});

export const liveUtteranceLatencySeconds = new Histogram({
  name: 'chronicler_live_utterance_latency_seconds',
  help: 'From the end of a spoken utterance (session start + end_seconds) to its final line handed to socket.io',
  buckets: [0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 30],
  registers: [registry],
});

/**
 * Members' speech reaching the live pipeline of this process (one voice-bot pod: its shards),
 * in packets of 20 ms: with the interims below, what says "people are talking" to the alert
 * on lines not stored, so a table break (a session open, nobody talking) never pages.
 */
export const liveAudioPackets = new Counter({
  name: 'chronicler_live_audio_packets_total',
  help: "Audio packets (20 ms) of members' speech received by the live sessions of this process",
  registers: [registry],
});

export const liveSpeechUtterances = new Counter({
  name: 'chronicler_live_speech_utterances_total',
  help: 'Utterances the speech provider gave the live sessions of this process, by kind (interim, final)',
  labelNames: ['kind'] as const,
  registers: [registry],
});

export const liveFinalsPublished = new Counter({
  name: 'chronicler_live_finals_published_total',
  help: 'Final live utterances of this process acknowledged by the bus (on their way to be stored)',
  registers: [registry],
});

export const voiceWatchdogRejoins = new Counter({
  name: 'chronicler_voice_watchdog_rejoins_total',
  help: 'Voice rejoins by the watchdog: someone was speaking and nothing decoded',
  registers: [registry],
});

/** Recordings and people in their channels of this process, against its bound (POD_MAX_*). */
export const voiceRecordingLoad = new Gauge({
  name: 'chronicler_voice_recording_load',
  help: 'This voice-bot process: recordings running and the people in their voice channels (what), and the bound on each (limit; 0: none)',
  labelNames: ['what', 'kind'] as const,
  registers: [registry],
});

export const voiceRecordingsRefused = new Counter({
  name: 'chronicler_voice_recordings_refused_total',
  help: 'Recordings this voice-bot process refused because it was at its bound (reason: recordings or speakers): alert on any',
  labelNames: ['reason'] as const,
  registers: [registry],
});

export const discordGatewayFatalCloses = new Counter({
  name: 'chronicler_discord_gateway_fatal_closes_total',
  help: 'Discord gateway closes the bot does not retry (4011 sharding required, 4004 bad token, ...), by code: alert on any',
  labelNames: ['code'] as const,
  registers: [registry],
});

export const processErrors = new Counter({
  name: 'chronicler_process_errors_total',
  help: 'Exceptions and promise rejections nothing caught (kind), by where they came from (origin: voice or other), and what the process did (action): alert on any',
  labelNames: ['kind', 'origin', 'action'] as const,
  registers: [registry],
});

// ---- speech-to-text streams ----------------------------------------------------------

export const speechStreamsOpen = new Gauge({
  name: 'chronicler_speech_streams_open',
  help: 'Streaming speech-to-text streams open in this process, by provider',
  labelNames: ['provider'] as const,
  registers: [registry],
});

export const speechErrors = new Counter({
  name: 'chronicler_speech_errors_total',
  help: 'Speech provider connections that failed or were lost, by provider',
  labelNames: ['provider'] as const,
  registers: [registry],
});

export const speechReconnects = new Counter({
  name: 'chronicler_speech_reconnects_total',
  help: 'Reconnect attempts of speech streams after a failure or a lost connection, by provider',
  labelNames: ['provider'] as const,
  registers: [registry],
});

// ---- AI ------------------------------------------------------------------------------

export const aiRequests = new Counter({
  name: 'chronicler_ai_requests_total',
  help: 'AI model requests, by request type, model and outcome (success or failure)',
  labelNames: ['type', 'model', 'outcome'] as const,
  registers: [registry],
});

export const aiTokens = new Counter({
  name: 'chronicler_ai_tokens_total',
  help: 'Tokens of AI model requests, by request type, model and kind (prompt or completion)',
  labelNames: ['type', 'model', 'kind'] as const,
  registers: [registry],
});

export const aiCostUsd = new Counter({
  name: 'chronicler_ai_cost_usd_total',
  help: 'Estimated cost of AI model requests in USD (configured prices), by request type and model',
  labelNames: ['type', 'model'] as const,
  registers: [registry],
});

/**
 * A counter of a service's own on this process's registry (served at /metrics with the
 * rest). Asking twice for one name gives the same counter, so a module loaded again (or two
 * instances of a class) counts into one series instead of failing to register.
 */
export function counter<L extends string = never>(
  name: string,
  help: string,
  labelNames: readonly L[] = [],
): Counter<L> {
  const existing = registry.getSingleMetric(name);
  if (existing instanceof Counter) return existing as Counter<L>;
  return new Counter({ name, help, labelNames, registers: [registry] });
}
