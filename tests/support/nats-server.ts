import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort, waitFor } from './system.ts';

const NATS_BIN = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

/** A private nats-server with JetStream, so a test may stop and restart it. */
export class PrivateNatsServer {
  private child?: ChildProcess;
  private constructor(
    readonly port: number,
    private readonly storeDir: string,
  ) {}

  static async start(): Promise<PrivateNatsServer> {
    const s = new PrivateNatsServer(await freePort(), mkdtempSync(path.join(os.tmpdir(), 'nats-store-')));
    await s.restart();
    return s;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** (Re)starts on the same port and store directory, and waits until it accepts connections. */
  async restart(): Promise<void> {
    this.child = spawn(NATS_BIN, ['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', this.storeDir], {
      stdio: 'ignore',
    });
    await waitFor(() => portOpen(this.port), 10_000, 50);
  }

  async stop(): Promise<void> {
    const c = this.child;
    if (!c || c.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      c.once('exit', () => resolve());
      c.kill('SIGTERM');
    });
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.storeDir, { recursive: true, force: true });
  }
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });
}
