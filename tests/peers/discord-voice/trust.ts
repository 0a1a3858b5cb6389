import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The self-signed certificate the peer's voice server serves (for 127.0.0.1 and localhost). */
export const VOICE_TLS_CERT = fileURLToPath(new URL('./tls/cert.pem', import.meta.url));
export const VOICE_TLS_KEY = fileURLToPath(new URL('./tls/key.pem', import.meta.url));

/**
 * A CA file for NODE_EXTRA_CA_CERTS that trusts the voice server's certificate as well as what
 * NODE_EXTRA_CA_CERTS already named (Node reads one file, once, at process start): the voice
 * server speaks TLS because @discordjs/voice always dials wss://, as Discord requires.
 */
export function voiceTrustBundle(existing = process.env.NODE_EXTRA_CA_CERTS): string {
  const ours = readFileSync(VOICE_TLS_CERT, 'utf8');
  if (existing && existsSync(existing) && readFileSync(existing, 'utf8').includes(ours.trim()))
    return existing;
  const previous = existing && existsSync(existing) ? readFileSync(existing, 'utf8') : '';
  const file = path.join(os.tmpdir(), `chronicler-test-ca-${process.getuid?.() ?? 0}.pem`);
  writeFileSync(file, `${previous.trimEnd()}\n${ours}`);
  return file;
}
