import { formatTranscriptLine } from '@chronicler/contracts';
import { mkdirSync, readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { busSink } from '@chronicler/voice-bot/replay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFitsPhone, launchBrowser, newPage, signInLocally } from '../support/browser.ts';
import { startSystem, type TestSystem } from '../support/system.ts';

const SHOTS = '/tmp/shots-transcript-tools';
const MOBILE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

/** Runs in the page; the test project's TypeScript has no DOM types. */
const readToken = (page: Page) =>
  page.evaluate(() =>
    (globalThis as unknown as { localStorage: { getItem(key: string): string | null } }).localStorage.getItem(
      'auth_token',
    ),
  );

const TABLE = [
  '[00:00:04] 1: Welcome back to the Sunless Citadel.',
  '[00:00:09] 2: I light a torch and look down the stairs.',
  '[00:00:15] 1: The steps are slick with moss.',
  '[00:00:21] 2: I tie a rope to the pillar first.',
  '[00:00:28] 3: I keep watch behind us.',
  '[00:00:34] 2: Then I climb down slowly.',
].join('\n');

describe('transcript tools in the viewer: export, speaker names, line edits, find and jump', () => {
  let system: TestSystem;
  let browser: Browser;
  let page: Page;
  let api: <T>(method: string, path: string, body?: unknown) => Promise<T>;

  beforeAll(async () => {
    system = await startSystem({ mode: 'embedded', processes: 'one', env: { SUMMARY_AUTOMATIC: 'false' } });
    browser = await launchBrowser();
    ({ page } = await newPage(browser, system.url));
    await signInLocally(page, 'gm');
    await page.waitForURL((u) => u.pathname === '/welcome' || u.pathname === '/');
    const token = await readToken(page);
    api = async <T>(method: string, path: string, body?: unknown) => {
      const res = await fetch(`${system.url}/api${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as T;
    };
  });
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  const session = (name: string, transcript: string, summary = '') =>
    api<{ id: string }>('POST', '/transcripts/manual', {
      name,
      session_date: '2026-03-14T19:00:00.000Z',
      transcript,
      summary,
    });
  const speakers = () => page.locator('.transcript-speaker');
  const lineText = (n: number) => page.locator('.transcript-line').nth(n);

  /** The file a menu item downloads, as text. */
  async function download(item: string): Promise<{ name: string; text: string }> {
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('menuitem', { name: item }).click(),
    ]);
    return { name: file.suggestedFilename(), text: readFileSync((await file.path())!, 'utf8') };
  }

  it('exports a session and a campaign from their menus', async () => {
    const group = await api<{ id: string }>('POST', '/groups', { name: 'Sunless Campaign' });
    const { id } = await session('Into the Citadel', TABLE, 'The party went down.');
    await api('PUT', `/transcripts/${id}/assign-group`, { group_id: group.id });
    await page.goto(`/sessions/${id}`);
    await page.getByRole('button', { name: 'Export' }).click();
    const items = page.getByRole('menu').getByRole('menuitem');
    expect(await items.allTextContents()).toEqual([
      'Markdown (.md)',
      'Plain text (.txt)',
      'Subtitles, SubRip (.srt)',
      'Subtitles, WebVTT (.vtt)',
      'Word document (.docx)',
      'JSON (.json)',
    ]);
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: `${SHOTS}/export-menu-desktop.png` });
    const md = await download('Markdown (.md)');
    expect(md.name).toBe('Into-the-Citadel-2026-03-14.md');
    expect(md.text).toContain('# Into the Citadel');
    expect(md.text).toContain('**[00:00:09] Speaker 2:** I light a torch and look down the stairs.');
    await page.getByRole('button', { name: 'Export' }).click();
    const srt = await download('Subtitles, SubRip (.srt)');
    expect(srt.text.startsWith('1\n00:00:04,000 --> 00:00:09,000\nSpeaker 1: Welcome back')).toBe(true);

    await page.goto(`/groups/${group.id}`);
    await page.getByRole('button', { name: 'Export campaign' }).click();
    expect(await page.getByRole('menu').getByRole('menuitem').allTextContents()).toEqual([
      'Markdown, one file (.md)',
      'Zip, a file per session (.zip)',
    ]);
    await page.screenshot({ path: `${SHOTS}/group-export-desktop.png` });
    const campaign = await download('Markdown, one file (.md)');
    expect(campaign.name).toBe('Sunless-Campaign.md');
    expect(campaign.text).toContain('### Into the Citadel');
  });

  it('renames "Speaker 2" to a character on every line and in the Markdown export, and undoes it', async () => {
    const { id } = await session('Rename test', TABLE);
    await page.goto(`/sessions/${id}`);
    await expect.poll(() => speakers().allTextContents()).toContain('Speaker 2:');
    await page.getByRole('button', { name: 'Speaker names' }).click();
    await page.getByLabel('Name for Speaker 2').fill('Scanlan');
    await page.getByRole('button', { name: 'Save names' }).click();
    await expect
      .poll(() => speakers().allTextContents())
      .toEqual(['Speaker 1:', 'Scanlan:', 'Speaker 1:', 'Scanlan:', 'Speaker 3:', 'Scanlan:']);
    await page.screenshot({ path: `${SHOTS}/renamed-desktop.png` });
    await page.setViewportSize(MOBILE);
    await expectFitsPhone(page);
    await page.screenshot({ path: `${SHOTS}/renamed-phone.png`, fullPage: true });
    await page.setViewportSize(DESKTOP);
    await page.getByRole('button', { name: 'Export' }).click();
    const md = await download('Markdown (.md)');
    expect(md.text).toContain('**[00:00:09] Scanlan:** I light a torch and look down the stairs.');
    expect(md.text).toContain('**[00:00:21] Scanlan:** I tie a rope to the pillar first.');
    expect(md.text).toContain('**[00:00:34] Scanlan:** Then I climb down slowly.');
    expect(md.text).not.toContain('Speaker 2:**');
    // The stored text keeps its label; undo puts the label back on screen.
    expect((await api<{ content: string }>('GET', `/transcripts/${id}`)).content).toBe(TABLE);
    await page.getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => speakers().allTextContents()).toContain('Speaker 2:');
    expect(await speakers().allTextContents()).not.toContain('Scanlan:');
  });

  it("applies the group's Who Is Who names to a new session with one click", async () => {
    const group = await api<{ id: string }>('POST', '/groups', { name: 'Who Is Who campaign' });
    await api('PUT', `/groups/${group.id}/characters`, {
      links: [{ speaker: 'Speaker 3', character: 'Pike' }],
    });
    const { id } = await session('Suggested names', TABLE);
    await api('PUT', `/transcripts/${id}/assign-group`, { group_id: group.id });
    await page.goto(`/sessions/${id}`);
    await page.getByText('Who Is Who suggests: Speaker 3 → Pike.').waitFor();
    await page.getByRole('button', { name: 'Apply suggested names' }).click();
    await expect.poll(() => speakers().allTextContents()).toContain('Pike:');
    expect(await speakers().allTextContents()).not.toContain('Speaker 3:');
  });

  it('edits one line in place: Enter saves, Escape cancels, the edit shows and survives a reload', async () => {
    const { id } = await session('Edit test', TABLE, 'A summary from before.');
    await page.goto(`/sessions/${id}`);
    await lineText(2).dblclick();
    const box = page.getByLabel('Text of line 3');
    await box.fill('The steps are slick with blood.');
    await box.press('Enter');
    await expect
      .poll(() => lineText(2).textContent())
      .toBe('[00:00:15] Speaker 1: The steps are slick with blood.');
    await page.getByText('edited', { exact: true }).waitFor();
    await page
      .getByText('This summary was made before the transcript was last edited', { exact: false })
      .waitFor();
    await page.screenshot({ path: `${SHOTS}/line-edited-desktop.png` });
    // Escape leaves another line as it was.
    await page.getByRole('button', { name: 'Edit line 4' }).click();
    await page.getByLabel('Text of line 4').fill('Something else');
    await page.getByLabel('Text of line 4').press('Escape');
    expect(await lineText(3).textContent()).toBe('[00:00:21] Speaker 2: I tie a rope to the pillar first.');
    await page.reload();
    await expect
      .poll(() => lineText(2).textContent())
      .toBe('[00:00:15] Speaker 1: The steps are slick with blood.');
    const stored = await api<{ content: string }>('GET', `/transcripts/${id}`);
    expect(stored.content.split('\n')[2]).toBe('[00:00:15] 1: The steps are slick with blood.');
    // Revert puts the original back.
    await page.getByRole('button', { name: 'Revert' }).click();
    await expect
      .poll(() => lineText(2).textContent())
      .toBe('[00:00:15] Speaker 1: The steps are slick with moss.');
  });

  it('names and edits the final lines of a live session while it runs, and the ended text keeps the edit', async () => {
    const user = await page.evaluate(() =>
      (
        globalThis as unknown as { localStorage: { getItem(key: string): string | null } }
      ).localStorage.getItem('auth_user'),
    );
    const sink = busSink(system.platform!.bus);
    const { transcriptId } = await sink.start({
      owner_id: (JSON.parse(user!) as { id: string }).id,
      name: 'Live table',
    });
    const final = (n: number, speaker: number, at: number, text: string) => ({
      utterance_id: `u${n}`,
      text,
      speaker_tag: speaker,
      start_seconds: at,
      end_seconds: at + 1,
      final_index: n,
      is_final: true,
    });
    await sink.send(transcriptId, [final(1, 1, 1, 'Roll initiative.'), final(2, 2, 4, 'I got a twelve.')]);
    // The start and the finals are consumed from the stream: open the viewer once both lines are stored.
    await expect
      .poll(async () => {
        const t = await api<{ content: string }>('GET', `/transcripts/${transcriptId}`).catch(() => null);
        return t?.content.split('\n').length;
      })
      .toBe(2);
    await page.goto(`/sessions/${transcriptId}`);
    await expect.poll(() => speakers().allTextContents()).toEqual(['Speaker 1:', 'Speaker 2:']);
    await page.getByRole('button', { name: 'Speaker names' }).click();
    await page.getByLabel('Name for Speaker 2').fill('Keyleth');
    await page.getByRole('button', { name: 'Save names' }).click();
    await expect.poll(() => speakers().allTextContents()).toEqual(['Speaker 1:', 'Keyleth:']);
    // A line spoken after the rename arrives with the name.
    await sink.send(transcriptId, [final(3, 2, 7, 'And I cast a spell.')]);
    await expect.poll(() => speakers().allTextContents()).toEqual(['Speaker 1:', 'Keyleth:', 'Keyleth:']);
    await lineText(1).dblclick();
    await page.getByLabel('Text of line 2').fill('I got a twenty.');
    await page.getByLabel('Text of line 2').press('Enter');
    await expect.poll(() => lineText(1).textContent()).toBe('[00:00:04] Keyleth: I got a twenty.');
    await page.screenshot({ path: `${SHOTS}/live-edited-desktop.png` });
    await sink.end(transcriptId, { final_count: 3, interim_count: 0 });
    await expect
      .poll(async () => (await api<{ content: string }>('GET', `/transcripts/${transcriptId}`)).content)
      .toBe(
        '[00:00:01] 1: Roll initiative.\n[00:00:04] 2: I got a twenty.\n[00:00:07] 2: And I cast a spell.',
      );
    await expect.poll(() => lineText(1).textContent()).toBe('[00:00:04] Keyleth: I got a twenty.');
  });

  describe('find and jump under a long summary', () => {
    const lines = Array.from({ length: 400 }, (_, i) =>
      formatTranscriptLine({
        seconds: i * 10,
        speaker: (i % 3) + 1,
        text: i === 350 ? 'The lich whispers the word obsidian.' : `Round ${i}: the party presses on.`,
      }),
    ).join('\n');
    const summary = Array.from(
      { length: 40 },
      (_, i) => `Paragraph ${i} of a long recap of the campaign so far.`,
    ).join('\n\n');

    /** Whether the element is inside the window (not only inside its scroll box). */
    const inWindow = async (selector: string) =>
      page.evaluate((sel) => {
        const d = globalThis as unknown as {
          document: {
            querySelector(s: string): { getBoundingClientRect(): { top: number; bottom: number } } | null;
          };
          innerHeight: number;
        };
        const r = d.document.querySelector(sel)?.getBoundingClientRect();
        return Boolean(r && r.top >= 0 && r.bottom <= d.innerHeight);
      }, selector);

    for (const [label, viewport] of [
      ['desktop', DESKTOP],
      ['phone', MOBILE],
    ] as const) {
      it(`brings the hit into view in the window at ${label} width`, async () => {
        const { id } = await session(`Find ${label}`, lines, summary);
        await page.setViewportSize(viewport);
        await page.goto(`/sessions/${id}`);
        await page.locator('.transcript-line').first().waitFor();
        const find = page.getByPlaceholder('Find in transcript');
        await find.fill('obsidian');
        await find.press('Enter');
        await expect.poll(() => inWindow('mark.transcript-mark.is-current')).toBe(true);
        await page.screenshot({ path: `${SHOTS}/find-${label}.png` });
        // Back to the top of the page, then a jump to a time far down.
        await page.evaluate(() =>
          (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0),
        );
        await page.getByPlaceholder('HH:MM:SS').fill('00:55:00');
        await page.getByRole('button', { name: 'Go', exact: true }).click();
        await expect.poll(() => inWindow('.transcript-line.is-target')).toBe(true);
        expect(await page.locator('.transcript-line.is-target').textContent()).toContain('[00:55:00]');
        if (label === 'phone') await expectFitsPhone(page);
        await page.screenshot({ path: `${SHOTS}/jump-${label}.png` });
        await page.setViewportSize(DESKTOP);
      });
    }
  });
});
