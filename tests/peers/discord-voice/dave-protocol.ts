/** DAVE's voice gateway opcodes (discord/dave-protocol, protocol.md, "Voice Gateway Opcodes"). */
export const DaveOp = {
  PrepareTransition: 21,
  ExecuteTransition: 22,
  TransitionReady: 23,
  PrepareEpoch: 24,
  MlsExternalSender: 25,
  MlsKeyPackage: 26,
  MlsProposals: 27,
  MlsCommitWelcome: 28,
  MlsAnnounceCommitTransition: 29,
  MlsWelcome: 30,
  MlsInvalidCommitWelcome: 31,
} as const;

/** How the room misbehaves towards some members (the voice server's `faults`). */
export interface DaveFaults {
  /** Members sent no proposals or commits at all (and whose ready and op 31 are ignored). */
  daveStranded: Set<string>;
  /**
   * Members that miss one transition (its proposals, commit or welcome, and execute), as a client
   * on a lossy link or a stalled event loop does; the transition executes without them, as
   * Discord's does when its timeout passes, and they get everything after it again: the next
   * proposals then name an epoch they never reached.
   */
  daveMissNext: Set<string>;
  /** Members the next commit is announced to with bytes they cannot process (an invalid commit). */
  daveCorruptCommit: Set<string>;
  /** Messages lost on the way from a member to the gateway, by opcode (28 a commit, 23 ready). */
  daveDropFrom: Map<string, Set<number>>;
}

/** What the room needs from the voice server to reach a member. */
export interface DaveTransport {
  json(userId: string, op: number, d: unknown): void;
  binary(userId: string, op: number, payload: Buffer): void;
  /** The users connected to the channel (their clients' "recognized" users). */
  connected(): string[];
}

/**
 * "After all clients are ready (or after a timeout), the voice gateway announces that the
 * transition should be executed" (discord/dave-protocol, protocol.md, "Protocol Version Changes"
 * and "Commit Handling"); removed members can decrypt "for a period of time up to roughly two
 * seconds (due to the voice gateway transition timeout ...)" ("Member Remove"). Two seconds.
 */
export const TRANSITION_TIMEOUT_MS = 2_000;
