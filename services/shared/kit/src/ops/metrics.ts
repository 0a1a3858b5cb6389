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
