import type * as mls from 'ts-mls';
import { propose, type ExternalSenderKey, type SentProposal } from './mls.ts';

/** Sends one op 27 (append or revoke) to a member. */
type SendProposals = (to: string, op: 'append' | 'revoke', ps: SentProposal[]) => void;

/**
 * The voice gateway's side of "Initial Group Creation" (discord/dave-protocol, protocol.md), while
 * no group is established: "receiving a dave_mls_key_package opcode (26) will broadcast the add
 * proposal to all other pending group members", and "a client that joins when there is not an
 * established group receives any already sent in-flight add proposals for existing pending
 * members" (here in one op 27, a batch). Every pending member commits from its own local group;
 * the first valid commit creates the group ("Commit Ordering").
 */
export class PendingMembers {
  /** Each pending member's add proposal. */
  private readonly adds = new Map<string, SentProposal>();
  /** The add proposals each pending member was sent and that stand (not revoked). */
  private readonly sentTo = new Map<string, SentProposal[]>();

  constructor(
    private readonly key: ExternalSenderKey,
    private readonly send: SendProposals,
  ) {}

  /** Proposals are out that a commit should answer. */
  awaited(): boolean {
    return [...this.sentTo.values()].some((l) => l.length > 0);
  }

  /** What `userId` was sent, if it is a pending member. */
  sent(userId: string): SentProposal[] | undefined {
    return this.sentTo.get(userId);
  }

  /** Members with proposals out. */
  committers(): string[] {
    return [...this.sentTo].filter(([, l]) => l.length > 0).map(([id]) => id);
  }

  clear(): void {
    this.adds.clear();
    this.sentTo.clear();
  }

  /**
   * Brings the proposals up to date: the adds of pending members who left or sent a new key
   * package are revoked; each key package not yet proposed is proposed to the others.
   * Returns false when `stillPending()` turned false meanwhile (a commit created the group).
   */
  async update(
    keyPackages: Map<string, mls.KeyPackage>,
    connected: Set<string>,
    fresh: Set<string>,
    reached: (userId: string) => boolean,
    stillPending: () => boolean,
  ): Promise<void> {
    for (const id of [...this.adds.keys()]) {
      if (!connected.has(id) || !keyPackages.has(id) || fresh.has(id)) this.withdraw(id);
    }
    for (const [id, keyPackage] of keyPackages) {
      if (!connected.has(id) || this.adds.has(id) || !reached(id)) continue;
      fresh.delete(id);
      const add = await propose(this.key, 0n, id, { proposalType: 'add', add: { keyPackage } });
      if (!stillPending()) return;
      for (const [r, list] of this.sentTo) {
        list.push(add);
        this.send(r, 'append', [add]);
      }
      const inFlight = [...this.adds.values()];
      this.adds.set(id, add);
      this.sentTo.set(id, inFlight);
      if (inFlight.length) this.send(id, 'append', inFlight);
    }
  }

  /**
   * A pending member left or replaced its key package ("A pending group member can replace their
   * key package but cannot simultaneously use multiple key packages": "Key Packages"): its add is
   * revoked where it was sent ("The voice gateway may revoke in-flight proposals (e.g. when a
   * pending member no longer needs to be added to the group)": "Proposal Handling").
   */
  withdraw(userId: string): void {
    const add = this.adds.get(userId);
    this.adds.delete(userId);
    this.sentTo.delete(userId);
    if (!add) return;
    for (const [r, list] of this.sentTo) {
      if (!list.includes(add)) continue;
      list.splice(list.indexOf(add), 1);
      this.send(r, 'revoke', [add]);
    }
  }

  /** Every pending member's proposals are revoked; the next update proposes them afresh. */
  abandon(): void {
    for (const [r, list] of this.sentTo) if (list.length) this.send(r, 'revoke', [...list]);
    this.clear();
  }
}
