import NEEDS from './service-needs.json' with { type: 'json' };

/**
 * What one service needs, declared once (charts/chronicler/needs.json, copied here byte for byte
 * and checked by a test): the chart derives from it each pod's secret keys, its DATABASE_URL,
 * its NetworkPolicy egress and the migration Jobs; the code its /readyz and the URLs it requires.
 */
export interface ServiceNeeds {
  /** NATS: every service talks over the bus. */
  readonly bus: boolean;
  /** Owns a PostgreSQL schema (named after the service): gets DATABASE_URL and a migration Job. */
  readonly schema: boolean;
  /** Redis: locks, rate limits, caches, the socket.io adapter. */
  readonly redis: boolean;
  /** Writes to disk beyond what a restart may lose (a volume or a scratch directory). */
  readonly disk: boolean;
  /** The keys of the chart's Secret (values `secrets`) this service reads; no other reaches its pod. */
  readonly secrets: readonly string[];
  /** Outbound beyond the cluster: `https` (providers on 443), `transcription` (an in-cluster speech server), `voice-udp` (Discord voice). */
  readonly egress: readonly ('https' | 'transcription' | 'voice-udp')[];
}

export type ServiceName = keyof typeof NEEDS;

export const SERVICE_NEEDS: Readonly<Record<ServiceName, ServiceNeeds>> = NEEDS as Record<
  ServiceName,
  ServiceNeeds
>;

/** The services, one name each, used for folders, packages, bus subjects and images: the keys of the declaration. */
export const SERVICE_NAMES = Object.keys(SERVICE_NEEDS) as ServiceName[];
