import type * as mls from 'ts-mls';
import { PendingMembers } from './dave-pending.ts';
import { DaveOp, TRANSITION_TIMEOUT_MS, type DaveFaults, type DaveTransport } from './dave-protocol.ts';
import {
  appendPayload,
  decodeRawKeyPackage,
  externalSenderKey,
  readCommit,
  roundProposals,
  revokePayload,
  sameRefs,
  u16,
  type ExternalSenderKey,
  type SentProposal,
} from './mls.ts';

/**
 * Discord's part in DAVE (audio end-to-end encryption over MLS) for one voice channel: the MLS
 * external sender (op 25), the members' key packages (op 26), external Add and Remove proposals
 * signed by that sender (op 27), the first commit a member sends for them (op 28) announced to
 * the group (op 29) with the welcome to those added (op 30), and the transition: every member
 * says it is ready (op 23), then all execute it (op 22). The server never holds group secrets:
 * like Discord's it only tracks the group id (the channel id), the epoch and who sits in which
 * leaf. ts-mls builds and signs the proposals; the clients are @snazzah/davey.
 */

/** Citations below: discord/dave-protocol, protocol.md, by section. */
export class DaveRoom {
  /** Members of the MLS group, by user id, with their leaf index. */
  readonly leaves = new Map<string, number>();
  /** null: no group yet (the first commit creates it, at epoch 1). */
  epoch: bigint | null = null;
  /** Transitions executed, in order (for tests: each join or leave is one). */
  readonly executed: number[] = [];
  /** Of those, the ones executed at the timeout with members not ready (for tests). */
  readonly timedOut: number[] = [];
  /** 1: DAVE; 0: downgraded to transport encryption only, while a client without DAVE is here. */
  protocol = 1;
  /** Sole-member resets, by the member left alone (for tests). */
  readonly resets: string[] = [];
  /** Every op 27 sent: to whom, append or revoke, how many proposals (for tests). */
  readonly proposalsSent: { to: string; op: 'append' | 'revoke'; count: number }[] = [];
  /** Commits not broadcast (late, or not naming exactly the proposals in flight), by committer. */
  readonly refusedCommits: string[] = [];
  transitionTimeoutMs = TRANSITION_TIMEOUT_MS;
  private readonly keyPackages = new Map<string, mls.KeyPackage>();
  /** Key packages not yet proposed (a new one replaces a pending member's add: "Key Packages"). */
  private readonly fresh = new Set<string>();
  /** Members whose connection ended: removed by the next commit (a new connection re-adds them). */
  private readonly leaving = new Set<string>();
  /** The established group's round in flight: proposals every member was sent at this epoch. */
  private pending: { adds: SentProposal[]; removes: SentProposal[]; recipients: string[] } | null = null;
  /** No group yet: the pending members' proposals. */
  private readonly pendingMembers: PendingMembers;
  /** Members whose commit named this round's proposals but lacked the welcome its adds need. */
  private readonly noWelcome = new Set<string>();
  private transition: {
    id: number;
    waiting: Set<string>;
    protocol?: number;
    timer: NodeJS.Timeout;
  } | null = null;
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
    private readonly key: ExternalSenderKey,
  ) {
    this.pendingMembers = new PendingMembers(key, (to, op, ps) => this.sendProposals(to, op, ps));
  }

  get externalSender(): Uint8Array {
    return this.key.externalSender;
  }

  static async create(channelId: string, faults: DaveFaults, t: DaveTransport): Promise<DaveRoom> {
    return new DaveRoom(faults, t, await externalSenderKey(channelId));
  }

  /** A member's session is described with DAVE: it gets the external sender. */
  joined(userId: string): void {
    this.t.binary(userId, DaveOp.MlsExternalSender, Buffer.from(this.key.externalSender));
  }

  keyPackage(userId: string, payload: Buffer): void {
    this.keyPackages.set(userId, decodeRawKeyPackage(new Uint8Array(payload)));
    this.fresh.add(userId);
    this.run(() => this.propose());
  }

  /** A proposal round or a transition is under way (or queued). */
  busy(): boolean {
    const awaited = this.pendingMembers.awaited();
    return this.pending !== null || this.transition !== null || this.queue.length > 0 || awaited;
  }

  left(userId: string): void {
    this.keyPackages.delete(userId);
    this.fresh.delete(userId);
    if (this.leaves.has(userId)) this.leaving.add(userId);
    this.transition?.waiting.delete(userId);
    const p = this.pending;
    if (p) {
      // "The voice gateway may revoke in-flight proposals (e.g. when a pending member no longer
      // needs to be added to the group)" ("Proposal Handling").
      const add = p.adds.find((a) => a.userId === userId);
      p.recipients = p.recipients.filter((r) => r !== userId);
      if (add) {
        p.adds = p.adds.filter((a) => a !== add);
        for (const r of p.recipients) this.sendProposals(r, 'revoke', [add]);
      }
      if (!p.recipients.length || (!p.adds.length && !p.removes.length)) this.pending = null;
    }
    this.run(() => this.propose());
    this.maybeExecute();
  }

  /** Members this round's messages do not reach. */
  private skipped(userId: string): boolean {
    return this.faults.daveStranded.has(userId) || this.missing.has(userId);
  }

  /**
   * A member could not process a commit, welcome or proposals (op 31, "flag invalid commit or
   * welcome, request re-add": discord-api-docs, Voice Opcodes; "Recovery from Invalid Commit or
   * Welcome"): it has reset its group state, so it neither commits this round nor gets ready for
   * its transition; the voice gateway removes it and adds it back from the next key package.
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
      else {
        this.invalidated.delete(userId);
        if (this.epoch === null) this.pendingMembers.withdraw(userId);
      }
    });
  }

  commitWelcome(userId: string, payload: Buffer): void {
    const c = readCommit(payload);
    if (this.epoch === null) {
      // "The voice gateway broadcasts the first commit it receives for a given epoch" ("Commit
      // Ordering"), valid only when "it references all unrevoked proposals broadcast in the
      // epoch by the external sender ... and no other" ("Voice Gateway Commit Validity"): before
      // a group exists, those this pending member was sent. It creates the group (leaf 0).
      const sent = this.pendingMembers.sent(userId);
      if (!c || !sent?.length || !sameRefs(c.refs, sent)) return void this.refusedCommits.push(userId);
      if (!c.welcome.length) return this.refuseNoWelcome(userId, this.pendingMembers.committers());
      this.pendingMembers.clear();
      this.noWelcome.clear();
      this.leaves.set(userId, 0);
      this.epoch = 0n;
      this.announce(
        sent.map((a) => a.userId),
        [],
        c,
      );
      return;
    }
    const p = this.pending;
    // Late (another member's commit won) or not this round's exact proposals.
    if (!c || !p || !p.recipients.includes(userId) || !sameRefs(c.refs, [...p.adds, ...p.removes])) {
      return void this.refusedCommits.push(userId);
    }
    if (p.adds.length && !c.welcome.length) return this.refuseNoWelcome(userId, p.recipients);
    this.pending = null;
    this.noWelcome.clear();
    this.announce(
      p.adds.map((a) => a.userId),
      p.removes.map((r) => r.userId),
      c,
    );
  }

  /**
   * "When there is at least one add proposal handled by the commit, this opcode MUST include a
   * Welcome message" (op 28), and "the voice gateway will not broadcast a commit that it
   * determines to be invalid" ("Commit Ordering"). @snazzah/davey (the bot's DAVE library) sends
   * such a commit after a revoke: it includes the welcome only when that op 27 itself appended an
   * add (davey/src/session.rs, process_proposals, `commit_adds_members`). When every committer
   * did, the gateway revokes the round and proposes it again (appended adds: commits with
   * welcomes); that last step is this peer's, Discord does not document what it does then.
   */
  private refuseNoWelcome(userId: string, committers: string[]): void {
    this.refusedCommits.push(userId);
    this.noWelcome.add(userId);
    if (!committers.every((m) => this.noWelcome.has(m))) return;
    this.noWelcome.clear();
    if (this.epoch === null) this.pendingMembers.abandon();
    else if (this.pending) {
      const p = this.pending;
      for (const r of p.recipients) this.sendProposals(r, 'revoke', [...p.adds, ...p.removes]);
      this.pending = null;
    }
    this.run(() => this.propose());
  }

  /** The winning commit: the new epoch, its transition, the commit to members, welcomes to those added. */
  private announce(adds: string[], removes: string[], c: { commit: Buffer; welcome: Buffer }): void {
    for (const id of removes) {
      this.leaves.delete(id);
      this.leaving.delete(id);
      this.invalidated.delete(id);
    }
    for (const id of adds) this.leaves.set(id, this.freeLeaf());
    this.epoch = (this.epoch ?? 0n) + 1n;
    const id = this.nextTransitionId++;
    const members = [...this.leaves.keys()];
    this.begin(
      id,
      members.filter((m) => !this.skipped(m) && !this.invalidated.has(m)),
    );
    for (const m of members) {
      if (this.skipped(m)) continue;
      if (adds.includes(m)) {
        if (c.welcome.length) this.t.binary(m, DaveOp.MlsWelcome, Buffer.concat([u16(id), c.welcome]));
      } else if (this.faults.daveCorruptCommit.delete(m)) {
        // A commit this member cannot process: the bytes after the commit's header are garbled.
        const bad = Buffer.from(c.commit);
        for (let i = 16; i < bad.length; i++) bad[i] = bad[i]! ^ 0x5a;
        this.t.binary(m, DaveOp.MlsAnnounceCommitTransition, Buffer.concat([u16(id), bad]));
      } else {
        this.t.binary(m, DaveOp.MlsAnnounceCommitTransition, Buffer.concat([u16(id), c.commit]));
      }
    }
  }

  /** A transition awaiting its members' op 23, executed when all are ready or at the timeout. */
  private begin(id: number, waiting: string[], protocol?: number): void {
    const timer = setTimeout(() => {
      if (this.transition?.id !== id) return;
      this.timedOut.push(id);
      this.transition.waiting.clear();
      this.maybeExecute();
    }, this.transitionTimeoutMs);
    timer.unref();
    this.transition = { id, waiting: new Set(waiting), protocol, timer };
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
      this.begin(id, members, 0);
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
      this.forgetGroup();
      this.keyPackages.clear();
      for (const m of this.t.connected()) {
        this.t.json(m, DaveOp.PrepareEpoch, { protocol_version: 1, epoch: 1 });
        this.joined(m);
      }
    });
  }

  private forgetGroup(): void {
    this.leaves.clear();
    this.leaving.clear();
    this.invalidated.clear();
    this.pendingMembers.clear();
    this.noWelcome.clear();
    this.epoch = null;
  }

  private maybeExecute(): void {
    const tr = this.transition;
    if (!tr || tr.waiting.size > 0) return;
    clearTimeout(tr.timer);
    this.transition = null;
    this.executed.push(tr.id);
    if (tr.protocol === 0) {
      this.forgetGroup();
      this.keyPackages.clear();
      for (const m of this.t.connected()) this.t.json(m, DaveOp.ExecuteTransition, { transition_id: tr.id });
      void this.drain();
      return;
    }
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

  private sendProposals(to: string, op: 'append' | 'revoke', ps: SentProposal[]): void {
    this.proposalsSent.push({ to, op, count: ps.length });
    this.t.binary(to, DaveOp.MlsProposals, op === 'append' ? appendPayload(ps) : revokePayload(ps));
  }

  private async propose(): Promise<void> {
    if (this.protocol === 0) return;
    if (this.epoch === null) return this.proposeToPending();
    const connected = new Set(this.t.connected());
    const gone = [...this.leaves.keys()].filter((id) => !connected.has(id) || this.leaving.has(id));
    if (gone.length) return this.proposeRemoval(gone);
    const joining = [...this.keyPackages.keys()].filter((id) => !this.leaves.has(id) && connected.has(id));
    this.fresh.clear();
    this.noWelcome.clear();
    // Every add waiting goes out in one op 27 ("The voice gateway may delay a dave_mls_proposals
    // opcode (27) to batch multiple MLS proposals": "Proposal Handling").
    if (joining.length) await this.send(joining, []);
  }

  /** No group yet: the pending members' proposals (dave-pending.ts). */
  private async proposeToPending(): Promise<void> {
    this.noWelcome.clear();
    await this.pendingMembers.update(
      this.keyPackages,
      new Set(this.t.connected()),
      this.fresh,
      (id) => !this.faults.daveStranded.has(id),
      () => this.epoch === null,
    );
  }

  private async proposeRemoval(ids: string[]): Promise<void> {
    const remaining = [...this.leaves.keys()].filter((id) => !ids.includes(id));
    if (remaining.length <= 1) {
      this.forgetGroup();
      if (remaining.length === 1) this.soleMemberReset(remaining[0]!);
      this.run(() => this.propose());
      return;
    }
    await this.send([], ids);
  }

  /**
   * "Sole member reset" (protocol.md): "When only a single member remains in an established
   * group, the voice gateway sends a dave_protocol_prepare_epoch opcode (24) with the initial
   * group epoch epoch = 1 to the sole remaining member. This is followed by a
   * dave_protocol_prepare_transition opcode (21) with the initialization transition ID
   * transition_id = 0. The voice gateway replaces its local view of the MLS group with a new
   * unestablished group." The member answers with a new key package; when others join, the
   * group is created again as at the start.
   */
  private soleMemberReset(sole: string): void {
    this.resets.push(sole);
    this.keyPackages.delete(sole);
    if (this.skipped(sole)) return;
    this.t.json(sole, DaveOp.PrepareEpoch, { protocol_version: this.protocol, epoch: 1 });
    this.t.json(sole, DaveOp.PrepareTransition, { transition_id: 0, protocol_version: this.protocol });
  }

  private async send(adds: string[], removes: string[]): Promise<void> {
    const recipients = [...this.leaves.keys()].filter((id) => !removes.includes(id));
    const proposals = await roundProposals(
      this.key,
      this.epoch!,
      removes.map((id) => [id, this.leaves.get(id)!]),
      adds.map((id) => [id, this.keyPackages.get(id)!]),
    );
    this.missing = new Set(recipients.filter((r) => this.faults.daveMissNext.has(r)));
    const reached = recipients.filter((r) => !this.skipped(r) && !this.invalidated.has(r));
    this.pending = {
      adds: proposals.filter((p) => p.kind === 'add'),
      removes: proposals.filter((p) => p.kind === 'remove'),
      recipients: reached,
    };
    if (!reached.length) this.pending = null;
    for (const r of reached) this.sendProposals(r, 'append', proposals);
  }
}
