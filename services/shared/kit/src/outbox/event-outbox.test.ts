import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.ts';
import { openServiceTestbed, type ServiceTestbed } from '../testing/index.ts';
import { EventOutbox } from './event-outbox.ts';

// The table as a service's migration creates it (see EVENT_OUTBOX_TABLE).
const MIGRATION = `create table event_outbox (
  id bigserial primary key,
  subject text not null,
  payload jsonb not null,
  msg_id text not null,
  created_at timestamptz not null default now(),
  claimed_until timestamptz
);
create table things (id text primary key);`;

const STREAM = { name: 'OUTBOX_TEST', subjects: ['evt.outbox-test.>'], duplicateWindowMs: 60_000 };
const quiet = createLogger(null, { level: 'silent' });
const url = process.env.CHRONICLER_TEST_MODE === 'cluster' ? process.env.DATABASE_URL : undefined;

let dir: string;
let bed: ServiceTestbed;
const seen: { subject: string; payload: unknown }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'outbox-'));
  writeFileSync(path.join(dir, '0001_outbox.sql'), MIGRATION);
  bed = await openServiceTestbed({ schema: 'outbox', migrationsDir: dir, ...(url ? { url } : {}) });
  await bed.bus.ensureStream(STREAM);
  await bed.bus.consume({ stream: STREAM.name, durable: 'outbox-test' }, async (payload, ctx) => {
    seen.push({ subject: ctx.subject, payload });
  });
});
afterAll(async () => {
  await bed?.close();
  rmSync(dir, { recursive: true, force: true });
});

const outbox = (bus = bed.bus) => new EventOutbox({ db: bed.db, schema: bed.schema, bus, logger: quiet });
const pending = async () =>
  Number((await bed.db.query<{ n: number }>(`select count(*) as n from "${bed.schema}".event_outbox`))[0]!.n);
const until = async (done: () => boolean) => {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 25));
};
const received = (tag: string) => seen.filter((s) => (s.payload as { tag: string }).tag === tag);

/** Writes a row and its events in one transaction; throws after writing when `fail`. */
async function change(box: EventOutbox, tag: string, n: number, fail = false): Promise<void> {
  await bed.db.transaction(async (tx) => {
    await tx.query(`insert into "${bed.schema}".things (id) values ($1)`, [tag]);
    for (let i = 1; i <= n; i++) {
      await box.add(tx, { subject: `evt.outbox-test.${tag}`, payload: { tag, i }, msgId: `${tag}:${i}` });
    }
    if (fail) throw new Error('the change fails after writing');
  });
}

describe('the transactional outbox', () => {
  it('publishes what a committed transaction wrote, once, in order, and forgets it', async () => {
    const box = outbox();
    await change(box, 'committed', 3);
    expect(await box.drain()).toBe(3);
    await until(() => received('committed').length === 3);
    expect(received('committed').map((s) => (s.payload as { i: number }).i)).toEqual([1, 2, 3]);
    expect(await pending()).toBe(0);
    expect(await box.drain()).toBe(0);
  });

  it('publishes nothing of a transaction that rolled back', async () => {
    const box = outbox();
    await expect(change(box, 'rolled-back', 2, true)).rejects.toThrow();
    expect(await box.drain()).toBe(0);
    expect(received('rolled-back')).toEqual([]);
  });

  it('keeps the events when the bus refuses them, and publishes them once when it answers', async () => {
    // A bus where the stream does not exist: every durable publish fails.
    const { createBus } = await import('../bus/index.ts');
    const broken = await createBus({ prefix: `broken${Date.now().toString(36)}`, name: 'outbox-test' });
    try {
      const failing = outbox(broken);
      await change(failing, 'later', 2);
      expect(await failing.drain()).toBe(0);
      expect(await failing.drain()).toBe(0);
      expect(await pending()).toBe(2);
    } finally {
      await broken.close();
    }
    expect(await outbox().drain()).toBe(2);
    await until(() => received('later').length === 2);
    expect(received('later')).toHaveLength(2);
    expect(await pending()).toBe(0);
  });

  it('lets two relays share the table: each event goes once, and a claimed one waits for its lease', async () => {
    const a = outbox();
    const b = outbox();
    await change(a, 'shared', 20);
    const [na, nb] = await Promise.all([a.drain(), b.drain()]);
    expect(na + nb).toBe(20);
    await until(() => received('shared').length === 20);
    expect(new Set(received('shared').map((s) => (s.payload as { i: number }).i)).size).toBe(20);
    expect(received('shared')).toHaveLength(20);

    // A relay that claimed rows and died: nobody takes them until the lease has passed.
    await change(a, 'leased', 1);
    await bed.db.query(
      `update "${bed.schema}".event_outbox set claimed_until = now() + interval '1 hour' where msg_id = 'leased:1'`,
    );
    expect(await b.drain()).toBe(0);
    await bed.db.query(
      `update "${bed.schema}".event_outbox set claimed_until = now() - interval '1 second' where msg_id = 'leased:1'`,
    );
    expect(await b.drain()).toBe(1);
    await until(() => received('leased').length === 1);
    expect(received('leased')).toHaveLength(1);
  });

  it('relays by itself once started, after a wake', async () => {
    const box = outbox().start();
    try {
      await change(box, 'woken', 1);
      box.wake();
      await until(() => received('woken').length === 1);
      expect(received('woken')).toHaveLength(1);
    } finally {
      await box.stop();
    }
  });
});
