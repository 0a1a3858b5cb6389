import { createHash } from 'node:crypto';
import * as mls from 'ts-mls';

/**
 * The MLS pieces Discord's voice gateway handles as DAVE's delivery service (discord/dave-protocol,
 * protocol.md, "Delivery Service"): it signs external Add and Remove proposals as the group's one
 * external sender, names them by their proposal references, reads which proposals a commit
 * references, and frames the dave_mls_proposals payload (op 27). ts-mls does the MLS itself.
 */

const SUITE = 'MLS_128_DHKEMP256_AES128GCM_SHA256_P256';
const cs = await mls.getCiphersuiteImpl(mls.getCiphersuiteFromName(SUITE));

/** MLS variable-size vector length (RFC 9420, 2.1.2), which DAVE's binary opcodes use too. */
const varint = (n: number): Buffer => {
  if (n < 64) return Buffer.from([n]);
  if (n < 16384) return Buffer.from([0x40 | (n >> 8), n & 0xff]);
  const b = Buffer.alloc(4);
  b.writeUInt32BE((0x80000000 | n) >>> 0);
  return b;
};
export const u16 = (n: number): Buffer => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
};
const vector = (b: Buffer): Buffer => Buffer.concat([varint(b.length), b]);

/** One proposal the gateway broadcast: its MLSMessage and its reference (hex). */
export interface SentProposal {
  userId: string;
  kind: 'add' | 'remove';
  message: Buffer;
  ref: string;
}

/**
 * ProposalRef = RefHash("MLS 1.0 Proposal Reference", AuthenticatedContent) (RFC 9420, 5.2 and
 * 6.1; DAVE's op 27 "revoke" names proposals by it). An external sender's PublicMessage carries
 * no membership tag, so its AuthenticatedContent (wire_format, content, auth) is the
 * MLSMessage without its leading protocol version.
 */
function proposalRef(message: Buffer): string {
  const label = Buffer.from('MLS 1.0 Proposal Reference');
  const value = message.subarray(2);
  return createHash('sha256')
    .update(Buffer.concat([vector(label), vector(value)]))
    .digest('hex');
}

/** The gateway's signing identity and the group it proposes to (group id = the channel id). */
export interface ExternalSenderKey {
  groupId: Uint8Array;
  externalSender: Uint8Array;
  signKey: Uint8Array;
  publicKey: Uint8Array;
}

export async function externalSenderKey(channelId: string): Promise<ExternalSenderKey> {
  const { signKey, publicKey } = await cs.signature.keygen();
  const externalSender = mls.encodeExternalSender({
    signaturePublicKey: publicKey,
    credential: { credentialType: 'basic', identity: new Uint8Array(8) },
  });
  const groupId = Buffer.alloc(8);
  groupId.writeBigUInt64BE(BigInt(channelId));
  return { groupId: new Uint8Array(groupId), externalSender, signKey, publicKey };
}

/** An external proposal for the group at `epoch` (0: a pending member's local group). */
export async function propose(
  key: ExternalSenderKey,
  epoch: bigint,
  userId: string,
  proposal: mls.Proposal,
): Promise<SentProposal> {
  const context: mls.GroupContext = {
    version: 'mls10',
    cipherSuite: SUITE,
    groupId: key.groupId,
    epoch,
    // Not part of what an external sender signs; the gateway does not track the tree.
    treeHash: new Uint8Array(),
    confirmedTranscriptHash: new Uint8Array(),
    extensions: [{ extensionType: 'external_senders', extensionData: key.externalSender }],
  };
  const message = Buffer.from(
    mls.encodeMlsMessage(
      await mls.proposeExternal(
        { groupContext: context } as mls.GroupInfo,
        proposal,
        key.publicKey,
        key.signKey,
        cs,
      ),
    ),
  );
  return {
    userId,
    kind: proposal.proposalType === 'add' ? 'add' : 'remove',
    message,
    ref: proposalRef(message),
  };
}

/** A round's proposals for the group at `epoch`: the removes (by leaf index), then the adds. */
export async function roundProposals(
  key: ExternalSenderKey,
  epoch: bigint,
  removes: [string, number][],
  adds: [string, mls.KeyPackage][],
): Promise<SentProposal[]> {
  return Promise.all([
    ...removes.map(([id, leaf]) =>
      propose(key, epoch, id, { proposalType: 'remove', remove: { removed: leaf } }),
    ),
    ...adds.map(([id, keyPackage]) => propose(key, epoch, id, { proposalType: 'add', add: { keyPackage } })),
  ]);
}

/** op 27's payload: `append` (0) with the proposal messages, one batch in one message. */
export const appendPayload = (ps: SentProposal[]): Buffer =>
  Buffer.concat([Buffer.from([0]), vector(Buffer.concat(ps.map((p) => p.message)))]);

/** op 27's payload: `revoke` (1) with the references of the proposals withdrawn. */
export const revokePayload = (ps: SentProposal[]): Buffer =>
  Buffer.concat([Buffer.from([1]), vector(Buffer.concat(ps.map((p) => vector(Buffer.from(p.ref, 'hex')))))]);

/**
 * A dave_mls_commit_welcome payload (op 28): the commit's bytes, the welcome's (if any), and the
 * proposal references the commit names (hex), or null when it is no commit.
 */
export function readCommit(payload: Buffer): { commit: Buffer; welcome: Buffer; refs: string[] } | null {
  const decoded = mls.decodeMlsMessage(new Uint8Array(payload), 0);
  if (!decoded) return null;
  const [message, length] = decoded;
  if (message.wireformat !== 'mls_public_message') return null;
  const content = message.publicMessage.content;
  if (content.contentType !== 'commit') return null;
  const refs = content.commit.proposals.map((p) =>
    p.proposalOrRefType === 'reference' ? Buffer.from(p.reference).toString('hex') : 'inline',
  );
  return { commit: payload.subarray(0, length), welcome: payload.subarray(length), refs };
}

export function decodeRawKeyPackage(bytes: Uint8Array): mls.KeyPackage {
  // @snazzah/davey hands out the KeyPackage itself; wrap it as an MLSMessage to decode it.
  const wrapped = Buffer.concat([Buffer.from([0, 1, 0, 5]), Buffer.from(bytes)]);
  const decoded = mls.decodeMlsMessage(new Uint8Array(wrapped), 0);
  if (!decoded || decoded[0].wireformat !== 'mls_key_package') throw new Error('not a key package');
  return decoded[0].keyPackage;
}

/** A commit names exactly these proposals (no more, no fewer, none inline). */
export function sameRefs(refs: string[], sent: SentProposal[]): boolean {
  const want = new Set(sent.map((p) => p.ref));
  return refs.length === want.size && refs.every((r) => want.has(r));
}
