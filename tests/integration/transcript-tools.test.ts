import {
  getTranscriptRpc,
  type EditLineResult,
  type LineEdits,
  type SessionSpeakers,
  type Transcript,
} from '@chronicler/contracts';
import { call } from '@chronicler/kit';
import { parse as parseSubtitles } from '@plussub/srt-vtt-parser';
import { busSink } from '@chronicler/voice-bot/replay';
import { strFromU8, unzipSync } from 'fflate';
import mammoth from 'mammoth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from '../support/api.ts';
import { localSignIn } from '../support/auth.ts';
import { startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';

interface User {
  token: string;
  id: string;
}

const PASTED = [
  'The party meets at the inn, late at night.',
  '[00:00:05] 1: Welcome back, everyone.',
  '[00:00:09] 2: I check the door for traps.',
  '[00:00:15] 1: Roll for it.',
  '[00:00:21] 2: That is a nineteen.',
].join('\n');

describe(`line edits, speaker names and exports (${testMode} mode)`, () => {
  let system: TestSystem;
  let alice: User;
  let bob: User;

  beforeAll(async () => {
    system = await startSystem({ env: { AUTH_LOCAL_ENABLED: 'true', SUMMARY_AUTOMATIC: 'false' } });
    for (const [name, set] of [
      ['alice', (u: User) => (alice = u)],
      ['bob', (u: User) => (bob = u)],
    ] as const) {
      const r = await localSignIn(system.url, name);
      set({ token: r.cookie, id: r.body.user?.id ?? '' });
    }
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
  });

  const api = <T = Record<string, unknown>>(method: string, path: string, token?: string, body?: unknown) =>
    apiCall<T>(system.url, method, path, token, body);
  const raw = (path: string, token: string) =>
    fetch(`${system.url}/api${path}`, { headers: { authorization: `Bearer ${token}` } });

  const pasted = async (name = 'The Sunless Citadel', summary = 'They found the citadel.') => {
    const r = await api<{ id: string }>('POST', '/transcripts/manual', alice.token, {
      name,
      session_date: '2026-11-20',
      summary,
      transcript: PASTED,
    });
    expect(r.status).toBe(200);
    await api('PUT', `/transcripts/${r.body.id}/notes`, alice.token, { content: 'Bring rope next time.' });
    return r.body.id;
  };
  const content = async (id: string) =>
    (await api<Transcript>('GET', `/transcripts/${id}`, alice.token)).body;

  describe('PATCH /api/transcripts/{id}/lines/{lineId}', () => {
    it('changes a pasted line in place, keeps the original, marks the summary out of date and reverts', async () => {
      const id = await pasted();
      expect((await content(id)).summary_outdated).toBe(false);
      const edit = await api<EditLineResult>('PATCH', `/transcripts/${id}/lines/3`, alice.token, {
        text: 'I check the chest for traps.',
      });
      expect(edit.status).toBe(200);
      expect(edit.body.line).toMatchObject({
        line: 3,
        time: '00:00:09',
        speaker: 'Speaker 2',
        text: 'I check the chest for traps.',
        original: '[00:00:09] 2: I check the door for traps.',
      });
      expect(edit.body.summary_outdated).toBe(true);
      const after = await content(id);
      expect(after.content.split('\n')[2]).toBe('[00:00:09] 2: I check the chest for traps.');
      expect(after.summary_outdated).toBe(true);
      // A second edit keeps the very first original.
      await api('PATCH', `/transcripts/${id}/lines/3`, alice.token, {
        text: 'I check the lid.',
        speaker: 'Vex',
      });
      const edits = await api<LineEdits>('GET', `/transcripts/${id}/lines/edits`, alice.token);
      expect(edits.body.edits).toEqual([
        expect.objectContaining({
          line: 3,
          speaker: 'Vex',
          text: 'I check the lid.',
          original: '[00:00:09] 2: I check the door for traps.',
        }),
      ]);
      const reverted = await api<EditLineResult>('PATCH', `/transcripts/${id}/lines/3`, alice.token, {
        revert: true,
      });
      expect(reverted.status).toBe(200);
      expect(reverted.body.line.original).toBeNull();
      expect((await content(id)).content).toBe(PASTED);
      expect((await api<LineEdits>('GET', `/transcripts/${id}/lines/edits`, alice.token)).body.edits).toEqual(
        [],
      );
      // A new summary is current again.
      await api('PUT', `/transcripts/${id}/summary`, alice.token, { summary: 'Rewritten.' });
      expect((await content(id)).summary_outdated).toBe(false);
    });

    it('refuses bad input and other owners, changing nothing', async () => {
      const id = await pasted();
      const cases: Array<[string, unknown, number]> = [
        ['/lines/2', { text: '   ' }, 400],
        ['/lines/2', {}, 400],
        ['/lines/2', { text: 'x', revert: true }, 400],
        ['/lines/2', { speaker: 'A: B' }, 400],
        ['/lines/2', { speaker: '  ' }, 400],
        ['/lines/2', { text: 'x'.repeat(10_001) }, 400],
        ['/lines/2', { text: 'x', extra: 1 }, 400],
        ['/lines/2', { revert: true }, 404],
        ['/lines/99', { text: 'x' }, 404],
        ['/lines/0', { text: 'x' }, 404],
        ['/lines/abc', { text: 'x' }, 404],
      ];
      for (const [path, body, status] of cases) {
        const r = await api('PATCH', `/transcripts/${id}${path}`, alice.token, body);
        expect([path, body, r.status]).toEqual([path, body, status]);
      }
      expect((await api('PATCH', `/transcripts/${id}/lines/2`, bob.token, { text: 'mine now' })).status).toBe(
        404,
      );
      expect((await api('GET', `/transcripts/${id}/lines/edits`, bob.token)).status).toBe(404);
      expect((await api('PATCH', `/transcripts/not-an-id/lines/2`, alice.token, { text: 'x' })).status).toBe(
        404,
      );
      expect((await content(id)).content).toBe(PASTED);
      expect((await content(id)).summary_outdated).toBe(false);
    });

    it('refuses an edit that would take the transcript past 500,000 characters, changing nothing', async () => {
      const big = `[00:00:01] 1: short line\n${'x'.repeat(499_970)}`;
      const r = await api<{ id: string }>('POST', '/transcripts/manual', alice.token, {
        name: 'Full',
        session_date: '2026-11-20',
        transcript: big,
      });
      expect(r.status).toBe(200);
      const refused = await api<{ detail: string }>(
        'PATCH',
        `/transcripts/${r.body.id}/lines/1`,
        alice.token,
        {
          text: 'a much longer line than the one it replaces, long enough to pass the limit',
        },
      );
      expect([refused.status, refused.body.detail]).toEqual([
        400,
        'Transcript cannot exceed 500,000 characters',
      ]);
      expect((await content(r.body.id)).content).toBe(big);
      expect(
        (await api<LineEdits>('GET', `/transcripts/${r.body.id}/lines/edits`, alice.token)).body.edits,
      ).toEqual([]);
    });

    it('edits an audio session the same way', async () => {
      const [row] = await system.platform!.db.query<{ id: string }>(
        `insert into transcript.transcripts (owner_id, name, source, transcription_status, content)
         values ($1, 'From audio', 'audio', 'completed', $2) returning id`,
        [alice.id, '[00:00:01] 1: Helo there.\n[00:00:03] 2: Hi.'],
      );
      const r = await api<EditLineResult>('PATCH', `/transcripts/${row!.id}/lines/1`, alice.token, {
        text: 'Hello there.',
      });
      expect(r.status).toBe(200);
      expect((await content(row!.id)).content).toBe('[00:00:01] 1: Hello there.\n[00:00:03] 2: Hi.');
    });

    it('edits a final line of a live session while it runs, and the ended content keeps it', async () => {
      const sink = busSink(system.platform!.bus);
      const { transcriptId } = await sink.start({ owner_id: alice.id, name: 'Live game' });
      await sink.send(transcriptId, [
        {
          utterance_id: 'u1',
          text: 'We ride at dawn',
          speaker_tag: 1,
          start_seconds: 2,
          end_seconds: 3,
          final_index: 1,
          is_final: true,
        },
        {
          utterance_id: 'u2',
          text: 'To the keep',
          speaker_tag: 2,
          start_seconds: 5,
          end_seconds: 6,
          final_index: 2,
          is_final: true,
        },
      ]);
      // The start and the finals are consumed from the stream: the session shows up when they are stored.
      await waitFor(async () => (await content(transcriptId)).content?.split('\n').length === 2);
      const r = await api<EditLineResult>('PATCH', `/transcripts/${transcriptId}/lines/2`, alice.token, {
        text: 'To the castle',
      });
      expect(r.status).toBe(200);
      expect((await content(transcriptId)).content).toBe(
        '[00:00:02] 1: We ride at dawn\n[00:00:05] 2: To the castle',
      );
      await sink.end(transcriptId, { final_count: 2, interim_count: 0 });
      await waitFor(async () => (await content(transcriptId)).status === 'ended');
      const ended = await content(transcriptId);
      expect(ended.content).toBe('[00:00:02] 1: We ride at dawn\n[00:00:05] 2: To the castle');
      const edits = await api<LineEdits>('GET', `/transcripts/${transcriptId}/lines/edits`, alice.token);
      expect(edits.body.edits.map((e) => [e.line, e.original])).toEqual([[2, '[00:00:05] 2: To the keep']]);
      // After the end the stored text is edited (and the line row with it).
      await api('PATCH', `/transcripts/${transcriptId}/lines/1`, alice.token, { text: 'We ride at noon' });
      expect((await content(transcriptId)).content.split('\n')[0]).toBe('[00:00:02] 1: We ride at noon');
    });
  });

  describe('GET/PUT /api/transcripts/{id}/speakers', () => {
    it('names a label everywhere it is read, never in the stored text, and undoes', async () => {
      const id = await pasted();
      const before = await api<SessionSpeakers>('GET', `/transcripts/${id}/speakers`, alice.token);
      expect(before.body.speakers).toEqual([
        { label: 'Speaker 1', name: '', character: '', lines: 2 },
        { label: 'Speaker 2', name: '', character: '', lines: 2 },
      ]);
      const put = await api<SessionSpeakers>('PUT', `/transcripts/${id}/speakers`, alice.token, {
        speakers: [{ label: 'Speaker 2', name: 'Vex', character: "Vex'ahlia" }],
      });
      expect(put.status).toBe(200);
      expect(put.body.speakers.find((s) => s.label === 'Speaker 2')).toMatchObject({ name: 'Vex' });
      // The viewer reads the stored labels; summaries, chat and planning read the names.
      expect((await content(id)).content).toBe(PASTED);
      const forAi = await call(system.platform!.bus, getTranscriptRpc, { owner_id: alice.id, id });
      expect(forAi.content).toContain('[00:00:09] Vex: I check the door for traps.');
      expect(forAi.content).toContain('[00:00:05] 1: Welcome back, everyone.');
      const md = await (await raw(`/transcripts/${id}/export?format=md`, alice.token)).text();
      expect(md).toContain('**[00:00:09] Vex:** I check the door for traps.');
      expect(md).toContain('**[00:00:21] Vex:** That is a nineteen.');
      expect(md).not.toContain('Speaker 2:**');
      // Undo: the previous map back.
      await api('PUT', `/transcripts/${id}/speakers`, alice.token, { speakers: [] });
      const undone = await call(system.platform!.bus, getTranscriptRpc, { owner_id: alice.id, id });
      expect(undone.content).toBe(PASTED);
    });

    it("proposes the group's Who Is Who names", async () => {
      const group = await api<{ id: string }>('POST', '/groups', alice.token, { name: 'Vox Machina' });
      const id = await pasted();
      await api('PUT', `/transcripts/${id}/assign-group`, alice.token, { group_id: group.body.id });
      await api('PUT', `/groups/${group.body.id}/characters`, alice.token, {
        links: [{ speaker: 'Speaker 2', character: 'Scanlan' }],
      });
      const r = await api<SessionSpeakers>('GET', `/transcripts/${id}/speakers`, alice.token);
      expect(r.body.proposals).toEqual([{ label: 'Speaker 2', name: 'Scanlan', character: 'Scanlan' }]);

      // What a session's own lines say is proposed for it, and for no other session of the group.
      const session = async (transcript: string) => {
        const made = await api<{ id: string }>('POST', '/transcripts/manual', alice.token, {
          name: 'Another night',
          session_date: '2026-11-21',
          transcript,
        });
        await api('PUT', `/transcripts/${made.body.id}/assign-group`, alice.token, {
          group_id: group.body.id,
        });
        return made.body.id;
      };
      const introduced = await session(
        [
          '[00:00:01] 1: Welcome back, everyone, to the table tonight; we pick up where we left off in the keep.',
          "[00:00:04] 3: Hi all, I'm playing Pike.",
          '[00:00:07] 1: Good to have you, roll initiative please.',
        ].join('\n'),
      );
      const other = await session(
        [
          '[00:00:01] 1: The road goes on and on, and the rain does not stop.',
          '[00:00:05] 3: I keep walking.',
        ].join('\n'),
      );
      const own = await api<SessionSpeakers>('GET', `/transcripts/${introduced}/speakers`, alice.token);
      expect(own.body.proposals).toEqual([{ label: 'Speaker 3', name: 'Pike', character: 'Pike' }]);
      const elsewhere = await api<SessionSpeakers>('GET', `/transcripts/${other}/speakers`, alice.token);
      expect(elsewhere.body.proposals).toEqual([]);
    });

    it('refuses bad input and other owners, changing nothing', async () => {
      const id = await pasted();
      await api('PUT', `/transcripts/${id}/speakers`, alice.token, {
        speakers: [{ label: 'Speaker 1', name: 'Matt' }],
      });
      for (const body of [
        { speakers: [{ label: 'Speaker 2', name: 'A: B' }] },
        {
          speakers: [
            { label: 'Speaker 2', name: 'A' },
            { label: 'Speaker 2', name: 'B' },
          ],
        },
        { speakers: [{ label: '', name: 'A' }] },
        { speakers: [{ label: 'Speaker 2', name: 'x'.repeat(81) }] },
        { speakers: 'Vex' },
      ]) {
        expect((await api('PUT', `/transcripts/${id}/speakers`, alice.token, body)).status).toBe(400);
      }
      expect((await api('GET', `/transcripts/${id}/speakers`, bob.token)).status).toBe(404);
      expect(
        (
          await api('PUT', `/transcripts/${id}/speakers`, bob.token, {
            speakers: [{ label: 'Speaker 1', name: 'Bob' }],
          })
        ).status,
      ).toBe(404);
      const now = await api<SessionSpeakers>('GET', `/transcripts/${id}/speakers`, alice.token);
      expect(now.body.speakers.filter((s) => s.name).map((s) => [s.label, s.name])).toEqual([
        ['Speaker 1', 'Matt'],
      ]);
    });
  });

  describe('GET /api/transcripts/{id}/export', () => {
    it('answers every format as a named file', async () => {
      const id = await pasted('Café: the "Citadel" / part 1');
      await api('PUT', `/transcripts/${id}/speakers`, alice.token, {
        speakers: [{ label: 'Speaker 2', name: 'Vex' }],
      });
      const get = async (format: string) => {
        const res = await raw(`/transcripts/${id}/export?format=${format}`, alice.token);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-disposition')).toBe(
          `attachment; filename=Cafe-the-Citadel-part-1-2026-11-20.${format}`,
        );
        return res;
      };
      const md = await (await get('md')).text();
      for (const part of [
        '# Café: the "Citadel" / part 1',
        '**Date:** Nov 20, 2026',
        'They found the citadel.',
        'Bring rope next time.',
        'The party meets at the inn, late at night.',
        '**[00:00:05] Speaker 1:** Welcome back, everyone.',
      ])
        expect(md).toContain(part);
      const txt = await (await get('txt')).text();
      expect(txt).toContain('[00:00:09] Vex: I check the door for traps.');
      for (const format of ['srt', 'vtt']) {
        const res = await get(format);
        // The prologue has no time: no cue, and the header says so.
        expect(res.headers.get('x-untimed-lines')).toBe('1');
        const cues = parseSubtitles(await res.text()).entries;
        expect(cues.map((c) => [c.from, c.to, c.text])).toEqual([
          [5000, 9000, 'Speaker 1: Welcome back, everyone.'],
          [9000, 15000, 'Vex: I check the door for traps.'],
          [15000, 21000, 'Speaker 1: Roll for it.'],
          [21000, 23000, 'Vex: That is a nineteen.'],
        ]);
      }
      const docx = await get('docx');
      expect(docx.headers.get('content-type')).toContain('wordprocessingml');
      const text = (await mammoth.extractRawText({ buffer: Buffer.from(await docx.arrayBuffer()) })).value;
      expect(text).toContain('[00:00:09] Vex: I check the door for traps.');
      expect(text).toContain('Bring rope next time.');
      const json = (await (await get('json')).json()) as Transcript & { lines: unknown[]; notes: string };
      expect(json).toMatchObject({
        id,
        name: 'Café: the "Citadel" / part 1',
        content: PASTED,
        notes: 'Bring rope next time.',
      });
      expect(json.lines).toHaveLength(5);
      expect(json.lines[2]).toMatchObject({ line: 3, speaker: 'Speaker 2', name: 'Vex', seconds: 9 });
    });

    it('writes clean files: Word and text without Markdown or the offline marker, Markdown with HTML escaped and absolute links', async () => {
      const made = await api<{ id: string }>('POST', '/transcripts/manual', alice.token, {
        name: 'Clean files',
        session_date: '2026-11-20',
        transcript:
          '[00:00:05] 1: Watch out <script>alert(1)</script> <img src=x onerror=alert(2)>\n[00:00:09] 2: Fine.',
      });
      const id = made.body.id;
      // What the offline fallback writes: its marker, a heading, bold, a list with moment links.
      const summary = `<!-- chronicler:offline -->\n## Key moments\n\n- **Speaker 1** warns [[00:00:05]](/sessions/${id}#t=00:00:05)\n- Fine, says _Speaker 2_.`;
      expect((await api('PUT', `/transcripts/${id}/summary`, alice.token, { summary })).status).toBe(200);
      const file = async (format: string) => {
        const res = await raw(`/transcripts/${id}/export?format=${format}`, alice.token);
        expect(res.status).toBe(200);
        return res;
      };
      const docx = Buffer.from(await (await file('docx')).arrayBuffer());
      const word = (await mammoth.extractRawText({ buffer: docx })).value;
      const html = (await mammoth.convertToHtml({ buffer: docx })).value;
      const txt = await (await file('txt')).text();
      for (const text of [word, txt]) {
        expect(text).not.toContain('**');
        expect(text).not.toMatch(/^#+ /m);
        expect(text).not.toContain('<!--');
        expect(text).not.toContain('/sessions/');
        expect(text).toContain('Speaker 1 warns [00:00:05]');
        expect(text).toContain('Offline digest');
      }
      // Word's own heading, bold and list.
      expect(html).toContain('<h3>Key moments</h3>');
      expect(html).toContain('<li><strong>Speaker 1</strong> warns [00:00:05]</li>');
      const md = await (await file('md')).text();
      expect(md).not.toContain('<script>');
      expect(md).not.toContain('<img');
      expect(md).toContain('Watch out &lt;script>alert(1)&lt;/script> &lt;img src=x onerror=alert(2)>');
      expect(md).not.toContain('<!--');
      expect(md).toContain(`[[00:00:05]](${system.url}/sessions/${id}#t=00:00:05)`);
    });

    it('places the subtitles of a live session to the millisecond, from its lines’ own times', async () => {
      const sink = busSink(system.platform!.bus);
      const { transcriptId } = await sink.start({ owner_id: alice.id, name: 'Live subtitles' });
      await sink.send(transcriptId, [
        {
          utterance_id: 'a',
          text: 'We ride.',
          speaker_tag: 1,
          start_seconds: 2.5,
          end_seconds: 4,
          final_index: 1,
          is_final: true,
        },
        {
          utterance_id: 'b',
          text: 'At dawn.',
          speaker_tag: 2,
          start_seconds: 5.2,
          end_seconds: 7.8,
          final_index: 2,
          is_final: true,
        },
      ]);
      await sink.end(transcriptId, { final_count: 2, interim_count: 0 });
      await waitFor(async () => (await content(transcriptId)).status === 'ended', 30_000);
      expect((await content(transcriptId)).content).toBe('[00:00:02] 1: We ride.\n[00:00:05] 2: At dawn.');
      const res = await raw(`/transcripts/${transcriptId}/export?format=srt`, alice.token);
      expect(res.status).toBe(200);
      const body = await res.text();
      expect(body.split('\n')[1]).toBe('00:00:02,500 --> 00:00:04,000');
      expect(parseSubtitles(body).entries.map((c) => [c.from, c.to, c.text])).toEqual([
        [2500, 4000, 'Speaker 1: We ride.'],
        [5200, 7800, 'Speaker 2: At dawn.'],
      ]);
    });

    it('refuses subtitles of a session without times, in words, rather than an empty file', async () => {
      const made = await api<{ id: string }>('POST', '/transcripts/manual', alice.token, {
        name: 'No times',
        session_date: '2026-11-20',
        transcript: 'MATT: You arrive.\nLAURA: I ready my bow.',
      });
      for (const format of ['srt', 'vtt']) {
        const res = await raw(`/transcripts/${made.body.id}/export?format=${format}`, alice.token);
        expect(res.status).toBe(400);
        expect(((await res.json()) as { detail: string }).detail).toMatch(
          /No line of this session has a time/,
        );
      }
      for (const format of ['md', 'txt', 'docx', 'json']) {
        const res = await raw(`/transcripts/${made.body.id}/export?format=${format}`, alice.token);
        expect(res.status).toBe(200);
        expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);
      }
    });

    it('refuses a bad format and other owners', async () => {
      const id = await pasted();
      expect((await raw(`/transcripts/${id}/export?format=pdf`, alice.token)).status).toBe(400);
      expect((await raw(`/transcripts/${id}/export`, alice.token)).status).toBe(400);
      expect((await raw(`/transcripts/${id}/export?format=md`, bob.token)).status).toBe(404);
    });
  });

  describe('GET /api/groups/{id}/export', () => {
    it('exports a campaign as Markdown and as a zip of its sessions', async () => {
      const group = await api<{ id: string }>('POST', '/groups', alice.token, { name: 'Curse of Strahd' });
      const first = await pasted('Death House');
      const second = await api<{ id: string }>('POST', '/transcripts/manual', alice.token, {
        name: 'Village of Barovia',
        session_date: '2026-11-27',
        transcript: '[00:00:01] 1: The mists close in.',
      });
      for (const id of [first, second.body.id])
        await api('PUT', `/transcripts/${id}/assign-group`, alice.token, { group_id: group.body.id });
      const md = await raw(`/groups/${group.body.id}/export?format=md`, alice.token);
      expect(md.status).toBe(200);
      expect(md.headers.get('content-disposition')).toBe('attachment; filename=Curse-of-Strahd.md');
      const text = await md.text();
      expect(text.indexOf('### Death House')).toBeGreaterThan(0);
      expect(text.indexOf('### Village of Barovia')).toBeGreaterThan(text.indexOf('### Death House'));
      expect(text).toContain('**[00:00:01] Speaker 1:** The mists close in.');
      const zip = await raw(`/groups/${group.body.id}/export?format=zip`, alice.token);
      expect(zip.headers.get('content-type')).toBe('application/zip');
      const files = unzipSync(new Uint8Array(await zip.arrayBuffer()));
      expect(Object.keys(files).sort()).toEqual([
        '001-Death-House-2026-11-20.json',
        '001-Death-House-2026-11-20.md',
        '002-Village-of-Barovia-2026-11-27.json',
        '002-Village-of-Barovia-2026-11-27.md',
        'campaign.md',
      ]);
      expect(strFromU8(files['001-Death-House-2026-11-20.md']!)).toContain('Bring rope next time.');
      expect((await raw(`/groups/${group.body.id}/export?format=docx`, alice.token)).status).toBe(400);
      expect((await raw(`/groups/${group.body.id}/export?format=md`, bob.token)).status).toBe(404);
    });
  });

  it('documents the routes in /api/openapi.json', async () => {
    const doc = (await (await fetch(`${system.url}/api/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    expect(Object.keys(doc.paths['/api/transcripts/{id}/lines/{lineId}'] ?? {})).toContain('patch');
    expect(Object.keys(doc.paths['/api/transcripts/{id}/speakers'] ?? {}).sort()).toEqual(['get', 'put']);
    expect(doc.paths['/api/transcripts/{id}/export']).toHaveProperty('get');
    expect(doc.paths['/api/groups/{id}/export']).toHaveProperty('get');
  });
});
