import * as mls from 'ts-mls';

/**
 * Discord's part in DAVE (audio end-to-end encryption over MLS) for one voice channel: the MLS
 * external sender (op 25), the members' key packages (op 26), external Add and Remove proposals
 * signed by that sender (op 27), the first commit a member sends for them (op 28) announced to
 * the group (op 29) with the welcome to those added (op 30), and the transition: every member
 * says it is ready (op 23), then all execute it (op 22). The server never holds group secrets:
 * like Discord's it only tracks the group id (the channel id), the epoch and who sits in which
 * leaf. ts-mls builds and signs the proposals; the clients are @snazzah/davey.
 */

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

const SUITE = 'MLS_128_DHKEMP256_AES128GCM_SHA256_P256';
const cs = await mls.getCiphersuiteImpl(mls.getCiphersuiteFromName(SUITE));

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
}

/** What the room needs from the voice server to reach a member. */
export interface DaveTransport {
  json(userId: string, op: number, d: unknown): void;
  binary(userId: string, op: number, payload: Buffer): void;
  /** The users connected to the channel (their clients' "recognized" users). */
  connected(): string[];
}

const varint = (n: number): Buffer => {
  if (n < 64) return Buffer.from([n]);
  if (n < 16384) return Buffer.from([0x40 | (n >> 8), n & 0xff]);
  const b = Buffer.alloc(4);
  b.writeUInt32BE((0x80000000 | n) >>> 0);
  return b;
};
const u16 = (n: number): Buffer => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
};

export class DaveRoom {
  /** Members of the MLS group, by user id, with their leaf index. */
  readonly leaves = new Map<string, number>();
  /** null: no group yet (the first commit creates it, at epoch 1). */
  epoch: bigint | null = null;
  /** Transitions executed, in order (for tests: each join or leave is one). */
  readonly executed: number[] = [];
  /** 1: DAVE; 0: downgraded to transport encryption only, while a client without DAVE is here. */
  protocol = 1;
  private readonly keyPackages = new Map<string, mls.KeyPackage>();
  /** Members whose connection ended: removed by the next commit (a new connection re-adds them). */
  private readonly leaving = new Set<string>();
  private pending: { adds: string[]; removes: string[]; recipients: string[] } | null = null;
  private transition: { id: number; waiting: Set<string>; protocol?: number } | null = null;
  private nextTransitionId = 1;
  /** Members who flagged an invalid commit, welcome or proposals (op 31), until they are removed. */
  private readonly invalidated = new Set<string>();
  /** Members who sent op 31, in order (for tests). */
  readonly invalidFrom: string[] = [];
  /** The members missing the current round (taken from `daveMissNext` when it began). */
  private missing = new Set<string>();
  private queue: (() => Promise<void>)[] = [];
  private draining = false;

  private constructor(
    private readonly faults: DaveFaults,
    private readonly t: DaveTransport,
    private readonly groupId: Uint8Array,
    private readonly key: { signKey: Uint8Array; publicKey: Uint8Array },
    readonly externalSender: Uint8Array,
  ) {}

  static async create(channelId: string, faults: DaveFaults, t: DaveTransport): Promise<DaveRoom> {
    const { signKey, publicKey } = await cs.signature.keygen();
    const externalSender = mls.encodeExternalSender({
      signaturePublicKey: publicKey,
      credential: { credentialType: 'basic', identity: new Uint8Array(8) },
    });
    const groupId = Buffer.alloc(8);
    groupId.writeBigUInt64BE(BigInt(channelId));
    return new DaveRoom(faults, t, new Uint8Array(groupId), { signKey, publicKey }, externalSender);
  }

  /** A member's session is described with DAVE: it gets the external sender. */
  joined(userId: string): void {
    this.t.binary(userId, DaveOp.MlsExternalSender, Buffer.from(this.externalSender));
  }

  keyPackage(userId: string, payload: Buffer): void {
    this.keyPackages.set(userId, decodeRawKeyPackage(new Uint8Array(payload)));
    this.run(() => this.propose());
  }

  /** A proposal round or a transition is under way (or queued). */
  busy(): boolean {
    return this.pending !== null || this.transition !== null || this.queue.length > 0;
  }

  left(userId: string): void {
    this.keyPackages.delete(userId);
    if (this.leaves.has(userId)) this.leaving.add(userId);
    this.transition?.waiting.delete(userId);
    this.run(() => this.propose());
    this.maybeExecute();
  }

  /** Members this round's messages do not reach. */
  private skipped(userId: string): boolean {
    return this.faults.daveStranded.has(userId) || this.missing.has(userId);
  }

  /**
   * A member could not process a commit, welcome or proposals (op 31, "flag invalid commit or
   * welcome, request re-add": discord-api-docs, Voice Opcodes; daveprotocol.com, "Invalid
   * Commit/Welcome"): it has reset its group state, so it neither commits this round nor gets
   * ready for its transition; the voice gateway removes it and adds it back from the next key
   * package it sends.
   */
  invalid(userId: string): void {
    if (this.faults.daveStranded.has(userId)) return;
    this.invalidFrom.push(userId);
    this.invalidated.add(userId);
    if (this.pending) this.pending.recipients = this.pending.recipients.filter((r) => r !== userId);
    this.transition?.waiting.delete(userId);
    this.maybeExecute();
    this.run(async () => {
      if (this.leaves.has(userId)) await this.proposeRemoval([userId]);
      else this.invalidated.delete(userId);
    });
  }

  commitWelcome(userId: string, payload: Buffer): void {
    const p = this.pending;
    if (!p || !p.recipients.includes(userId)) return; // late: another member's commit won
    const decoded = mls.decodeMlsMessage(new Uint8Array(payload), 0);
    if (!decoded) return;
    const [, commitLength] = decoded;
    const commit = payload.subarray(0, commitLength);
    const welcome = payload.subarray(commitLength);
    this.pending = null;
    if (this.epoch === null) {
      // The committer created the group: it sits in leaf 0.
      this.leaves.set(userId, 0);
      this.epoch = 0n;
    }
    for (const id of p.removes) {
      this.leaves.delete(id);
      this.leaving.delete(id);
      this.invalidated.delete(id);
    }
    for (const id of p.adds) this.leaves.set(id, this.freeLeaf());
    this.epoch += 1n;
    const id = this.nextTransitionId++;
    const members = [...this.leaves.keys()];
    this.transition = {
      id,
      waiting: new Set(members.filter((m) => !this.skipped(m) && !this.invalidated.has(m))),
    };
    for (const m of members) {
      if (this.skipped(m)) continue;
      if (p.adds.includes(m)) {
        if (welcome.length) this.t.binary(m, DaveOp.MlsWelcome, Buffer.concat([u16(id), welcome]));
      } else if (this.faults.daveCorruptCommit.delete(m)) {
        // A commit this member cannot process: the bytes after the commit's header are garbled.
        const bad = Buffer.from(commit);
        for (let i = 16; i < bad.length; i++) bad[i] = bad[i]! ^ 0x5a;
        this.t.binary(m, DaveOp.MlsAnnounceCommitTransition, Buffer.concat([u16(id), bad]));
      } else {
        this.t.binary(m, DaveOp.MlsAnnounceCommitTransition, Buffer.concat([u16(id), commit]));
      }
    }
  }

  ready(userId: string, transitionId: number): void {
    if (this.transition?.id !== transitionId || this.skipped(userId)) return;
    this.transition.waiting.delete(userId);
    this.maybeExecute();
  }

  /**
   * A client without DAVE joined: every member is told to prepare a transition to protocol 0
   * (op 21), says it is ready (op 23), and executes it (op 22); the group is dropped.
   */
  downgrade(): void {
    if (this.protocol === 0) return;
    this.run(async () => {
      this.protocol = 0;
      const id = this.nextTransitionId++;
      const members = this.t.connected();
      this.transition = { id, waiting: new Set(members), protocol: 0 };
      for (const m of members)
        this.t.json(m, DaveOp.PrepareTransition, { transition_id: id, protocol_version: 0 });
      this.maybeExecute();
    });
  }

  /**
   * The last client without DAVE left: a new group is made at epoch 1 (op 24 prepare epoch);
   * the members answer with fresh key packages and the group forms as at the start.
   */
  upgrade(): void {
    if (this.protocol === 1) return;
    this.run(async () => {
      this.protocol = 1;
      this.leaves.clear();
      this.leaving.clear();
      this.keyPackages.clear();
      this.epoch = null;
      for (const m of this.t.connected()) {
        this.t.json(m, DaveOp.PrepareEpoch, { protocol_version: 1, epoch: 1 });
        this.joined(m);
      }
    });
  }

  private maybeExecute(): void {
    const tr = this.transition;
    if (!tr || tr.waiting.size > 0) return;
    this.transition = null;
    if (tr.protocol === 0) {
      this.leaves.clear();
      this.leaving.clear();
      this.keyPackages.clear();
      this.epoch = null;
      this.executed.push(tr.id);
      for (const m of this.t.connected()) this.t.json(m, DaveOp.ExecuteTransition, { transition_id: tr.id });
      void this.drain();
      return;
    }
    this.executed.push(tr.id);
    for (const m of this.leaves.keys()) {
      if (!this.skipped(m)) this.t.json(m, DaveOp.ExecuteTransition, { transition_id: tr.id });
    }
    // The transition they missed is over: they get the next round's messages again.
    for (const m of this.missing) this.faults.daveMissNext.delete(m);
    this.missing = new Set();
    this.run(() => this.propose());
  }

  private freeLeaf(): number {
    const used = new Set(this.leaves.values());
    let i = 0;
    while (used.has(i)) i++;
    return i;
  }

  /** One round at a time: proposals wait for the previous commit's transition to execute. */
  private run(step: () => Promise<void>): void {
    this.queue.push(step);
    void this.drain();
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.queue.length && !this.pending && !this.transition) await this.queue.shift()!();
    } finally {
      this.draining = false;
    }
  }

  private async propose(): Promise<void> {
    if (this.protocol === 0) return;
    const connected = new Set(this.t.connected());
    const gone = [...this.leaves.keys()].filter((id) => !connected.has(id) || this.leaving.has(id));
    if (gone.length) return this.proposeRemoval(gone);
    const joining = [...this.keyPackages.keys()].filter((id) => !this.leaves.has(id) && connected.has(id));
    if (!joining.length) return;
    if (this.epoch === null) {
      // No group yet: the first member to have sent a key package creates it by committing
      // the others' adds (at least two are needed for there to be anything to encrypt to).
      if (joining.length < 2) return;
      const [creator, ...others] = joining;
      await this.send([creator!], others, []);
      return;
    }
    await this.send([...this.leaves.keys()], joining, []);
  }

  private async proposeRemoval(ids: string[]): Promise<void> {
    const remaining = [...this.leaves.keys()].filter((id) => !ids.includes(id));
    if (!remaining.length) {
      for (const id of ids) {
        this.leaves.delete(id);
        this.leaving.delete(id);
      }
      this.epoch = null;
      this.run(() => this.propose());
      return;
    }
    await this.send(remaining, [], ids);
  }

  private async send(recipients: string[], adds: string[], removes: string[]): Promise<void> {
    const proposals: mls.Proposal[] = [
      ...removes.map(
        (id) => ({ proposalType: 'remove', remove: { removed: this.leaves.get(id)! } }) as mls.Proposal,
      ),
      ...adds.map(
        (id) => ({ proposalType: 'add', add: { keyPackage: this.keyPackages.get(id)! } }) as mls.Proposal,
      ),
    ];
    const context: mls.GroupContext = {
      version: 'mls10',
      cipherSuite: SUITE,
      groupId: this.groupId,
      epoch: this.epoch ?? 0n,
      // Not part of what an external sender signs; the server does not track the tree.
      treeHash: new Uint8Array(),
      confirmedTranscriptHash: new Uint8Array(),
      extensions: [{ extensionType: 'external_senders', extensionData: this.externalSender }],
    };
    const messages = await Promise.all(
      proposals.map(async (p) =>
        Buffer.from(
          mls.encodeMlsMessage(
            await mls.proposeExternal(
              { groupContext: context } as mls.GroupInfo,
              p,
              this.key.publicKey,
              this.key.signKey,
              cs,
            ),
          ),
        ),
      ),
    );
    const body = Buffer.concat(messages);
    this.missing = new Set(recipients.filter((r) => this.faults.daveMissNext.has(r)));
    const reached = recipients.filter((r) => !this.skipped(r) && !this.invalidated.has(r));
    this.pending = { adds, removes, recipients: reached };
    const payload = Buffer.concat([Buffer.from([0]), varint(body.length), body]); // 0: append
    for (const r of reached) this.t.binary(r, DaveOp.MlsProposals, payload);
  }
}

function decodeRawKeyPackage(bytes: Uint8Array): mls.KeyPackage {
  // @snazzah/davey hands out the KeyPackage itself; wrap it as an MLSMessage to decode it.
  const wrapped = Buffer.concat([Buffer.from([0, 1, 0, 5]), Buffer.from(bytes)]);
  const decoded = mls.decodeMlsMessage(new Uint8Array(wrapped), 0);
  if (!decoded || decoded[0].wireformat !== 'mls_key_package') throw new Error('not a key package');
  return decoded[0].keyPackage;
}
