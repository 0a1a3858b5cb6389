import {
  AUDIO_KEPT_UNTRANSCRIBED,
  AUDIO_UPLOAD_UNAVAILABLE,
  SPEECH_SETUP_SECTION,
} from '@chronicler/contracts';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audioFileError } from '../../web/src/features/sessions/session-form-rules.ts';
import { expectFitsPhone, launchBrowser, pageScrollWidth, signInLocally } from '../support/browser.ts';
import { crd3Blurb, crd3Transcript } from '../support/crd3.ts';
import { startDeepgramPeer, type DeepgramPeer } from '../peers/deepgram.ts';
import { startSystem, type TestSystem } from '../support/system.ts';
import { wav } from '../support/audio.ts';

const SHOTS = '/tmp/shots-forms';
const NO_CONTENT = 'Please provide either a summary, a transcript, or an audio file';

interface Session {
  id: string;
  name: string;
  session_timestamp: string;
  group_id: string;
  summary: string;
  content: string;
  source: string;
  transcription_status: string;
}

/** A page in New York time, so that "the start of the chosen local day" is not UTC midnight. */
async function newNyPage(browser: Browser, baseURL: string, width = 1280, height = 800) {
  const context = await browser.newContext({
    baseURL,
    viewport: { width, height },
    timezoneId: 'America/New_York',
  });
  const page = await context.newPage();
  const errors: Error[] = [];
  page.on('pageerror', (err) => errors.push(err));
  return { page, errors };
}

const tokenOf = (page: Page) =>
  page.evaluate(() =>
    (globalThis as unknown as { localStorage: { getItem(key: string): string | null } }).localStorage.getItem(
      'auth_token',
    ),
  );

/** The REST API as the signed-in page's user. */
function apiFor(system: TestSystem, page: Page) {
  return async <T>(method: string, p: string, body?: unknown): Promise<T> => {
    const token = await tokenOf(page);
    const res = await fetch(`${system.url}/api${p}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${p} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as T;
  };
}

const alertText = (page: Page) => page.locator('form [role="alert"]').first().textContent();

describe('audio file checks of the session form', () => {
  const mb = 1024 * 1024;
  it('accepts the listed audio types, and by extension only when the browser reports no type', () => {
    expect(audioFileError({ name: 'a.mp3', type: 'audio/mpeg', size: 10 })).toBeNull();
    expect(audioFileError({ name: 'a.m4a', type: 'audio/x-m4a', size: 10 })).toBeNull();
    expect(audioFileError({ name: 'session.WAV', type: '', size: 10 })).toBeNull();
    expect(audioFileError({ name: 'a.flac', type: 'audio/flac', size: 10 })).toBe(
      'Invalid file type. Please select an audio file (MP3, M4A, WAV, etc.). Detected type: audio/flac',
    );
    expect(audioFileError({ name: 'notes', type: '', size: 10 })).toBe(
      'Invalid file type. Please select an audio file (MP3, M4A, WAV, etc.). Detected type: unknown',
    );
  });

  it('refuses a file over 500MB with its size in MB', () => {
    expect(audioFileError({ name: 'a.mp3', type: 'audio/mpeg', size: 500 * mb })).toBeNull();
    expect(audioFileError({ name: 'a.mp3', type: 'audio/mpeg', size: 500 * mb + 1 })).toBe(
      'File too large. Maximum size is 500MB. Selected file: 500.0MB',
    );
    expect(audioFileError({ name: 'a.wav', type: 'audio/wav', size: 612.5 * mb })).toBe(
      'File too large. Maximum size is 500MB. Selected file: 612.5MB',
    );
  });
});

describe('session form (embedded, no speech-to-text provider)', () => {
  let system: TestSystem;
  let browser: Browser;
  beforeAll(async () => {
    system = await startSystem({
      mode: 'embedded',
      // Sessions keep the summaries the test gives them (summaries.test.ts covers automatic ones).
      env: { DEEPGRAM_API_KEY: '', ASSEMBLYAI_API_KEY: '', SPEECH_PROVIDER: '', SUMMARY_AUTOMATIC: 'false' },
    });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  it('validates, then creates a session from a pasted CRD3 transcript on the start of the local day', async () => {
    const { page, errors } = await newNyPage(browser, system.url);
    await signInLocally(page, 'Percy');
    await page.waitForURL('**/welcome');
    const api = apiFor(system, page);

    await page.goto('/');
    await page.getByRole('link', { name: 'New Session' }).click();
    await page.waitForURL('**/add-session');
    await page.getByRole('heading', { name: 'Manually Add Session', level: 1 }).waitFor();
    await page.getByText('Fill out the details below to add a previous session to your campaign.').waitFor();
    await page.getByText('This date determines the order sessions are displayed.').waitFor();
    expect(await page.getByLabel('Session Summary').getAttribute('rows')).toBe('4');
    const transcriptBox = page.getByLabel('Session Transcript');
    expect(await transcriptBox.getAttribute('rows')).toBe('10');
    expect(await transcriptBox.getAttribute('placeholder')).toContain('500,000 characters');

    // Without a provider the audio input is offered, and says the recording is kept until one
    // is set; the notice names the settings and the README section an operator follows.
    await page.getByText(AUDIO_KEPT_UNTRANSCRIBED, { exact: false }).waitFor();
    expect(AUDIO_KEPT_UNTRANSCRIBED).toContain('TRANSCRIPTION_BASE_URL');
    await page.getByText(`See “${SPEECH_SETUP_SECTION}” in the README.`).waitFor();
    await expect.poll(() => page.getByLabel('Upload Audio').isDisabled()).toBe(false);
    await page.screenshot({ path: `${SHOTS}/session-create.png`, fullPage: true });

    const create = page.getByRole('button', { name: 'Create Session' });
    const expectRefused = async (message: string) => {
      await create.click();
      await expect.poll(() => alertText(page)).toBe(message);
      expect(page.url()).toMatch(/\/add-session$/);
    };
    await page.getByLabel('Session Name *').fill('   ');
    await expectRefused('Session name is required');
    await page.getByLabel('Session Name *').fill('  Arrival at Kraghammer  ');
    await expectRefused('Session date is required');
    await page.getByLabel('Session Date *').fill('2026-03-14');
    await expectRefused(NO_CONTENT);
    await page.getByLabel('Session Summary').fill('   ');
    await expectRefused(NO_CONTENT);
    await page.getByLabel('Session Summary').fill('x'.repeat(10_001));
    await expectRefused('Session summary cannot exceed 10,000 characters');
    await page.getByLabel('Session Summary').fill('');
    await transcriptBox.fill('y'.repeat(500_001));
    await expectRefused('Transcript cannot exceed 500,000 characters');
    await page.screenshot({ path: `${SHOTS}/session-create-error.png` });
    // Nothing was sent for any of them.
    expect(await api<Session[]>('GET', '/transcripts')).toEqual([]);

    const transcript = crd3Transcript('C1E001', { timed: true, maxChars: 20_000 });
    await transcriptBox.fill(transcript);
    await create.click();
    await page.getByText('Session created successfully').waitFor();
    await page.waitForURL((url) => url.pathname === '/');
    // The session shows at once on the dashboard.
    const recent = page.locator('section', { has: page.getByRole('heading', { name: 'Recent Sessions' }) });
    await recent.getByText('Arrival at Kraghammer').waitFor();

    const [listed] = await api<Session[]>('GET', '/transcripts');
    const stored = await api<Session>('GET', `/transcripts/${listed!.id}`);
    expect(stored.name).toBe('Arrival at Kraghammer');
    // Midnight in New York on March 14 (EDT starts March 8, 2026).
    expect(stored.session_timestamp).toBe('2026-03-14T04:00:00.000Z');
    expect(stored.content).toBe(transcript);
    expect(stored.summary).toBe('');
    expect(stored.group_id).toBe('');
    expect(stored.source).toBe('manual');

    // Create replaced the form in history: going back does not return to it.
    await page.goBack();
    await page.waitForLoadState();
    expect(page.url()).not.toMatch(/\/add-session$/);
    expect(errors).toEqual([]);
  });

  it("creates a session in a group from the group's route, and Cancel goes back", async () => {
    const { page, errors } = await newNyPage(browser, system.url);
    await signInLocally(page, 'Keyleth');
    await page.waitForURL('**/welcome');
    const api = apiFor(system, page);
    const group = await api<{ id: string; group_id: string }>('POST', '/groups', { name: 'Vox Machina' });

    // Cancel: one step back, nothing created.
    await page.goto('/');
    await page.getByRole('link', { name: 'New Session' }).click();
    await page.waitForURL('**/add-session');
    await page.getByLabel('Session Name *').fill('Never saved');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    expect(await api<Session[]>('GET', '/transcripts')).toEqual([]);

    await page.goto(`/groups/${group.group_id}/add-session`);
    await page.getByRole('heading', { name: 'Manually Add Session', level: 1 }).waitFor();
    await page.getByLabel('Session Name *').fill('The Trial of Thordak');
    await page.getByLabel('Session Date *').fill('2026-01-10');
    const summary = crd3Blurb('C1E005') || 'The party faces the trial.';
    await page.getByLabel('Session Summary').fill(summary);
    await page.getByRole('button', { name: 'Create Session' }).click();
    await page.getByText('Session created successfully').waitFor();
    await page.waitForURL((url) => url.pathname === `/groups/${group.group_id}`);

    const [listed] = await api<Session[]>('GET', '/transcripts');
    expect(listed).toMatchObject({
      name: 'The Trial of Thordak',
      group_id: group.group_id,
      summary: summary.trim(),
      session_timestamp: '2026-01-10T05:00:00.000Z',
    });
    const groups = await api<{ id: string; session_ids: string[] }[]>('GET', '/groups');
    expect(groups.find((g) => g.id === group.id)?.session_ids).toEqual([listed!.id]);

    // A group that is not the user's: the server's reason shows and nothing is created.
    await page.goto('/groups/00000000-0000-4000-8000-000000000000/add-session');
    await page.getByLabel('Session Name *').fill('Lost');
    await page.getByLabel('Session Date *').fill('2026-01-11');
    await page.getByLabel('Session Summary').fill('Somewhere else');
    await page.getByRole('button', { name: 'Create Session' }).click();
    await page.getByText('Failed to create session', { exact: true }).waitFor();
    await expect.poll(() => alertText(page)).toBe('Group not found');
    expect(await api<Session[]>('GET', '/transcripts')).toHaveLength(1);
    expect(errors).toEqual([]);
  });

  it('edits a session: hidden transcript, update payload rules, navigation and load failure', async () => {
    const { page, errors } = await newNyPage(browser, system.url);
    await signInLocally(page, 'Grog');
    await page.waitForURL('**/welcome');
    const api = apiFor(system, page);
    const transcript = crd3Transcript('C1E022', { timed: true, turns: 40 });
    const session = await api<Session>('POST', '/transcripts/manual', {
      name: 'Grog and the Deck of Many Things',
      session_date: '2026-02-07T19:00:00.000Z',
      transcript,
    });

    await page.goto(`/sessions/${session.id}/edit`);
    await page.getByRole('heading', { name: 'Edit Session', level: 1 }).waitFor();
    await page.getByText('Update the details for this session.').waitFor();
    await page.getByText('Current transcript has 40 lines.').waitFor();
    expect(await page.getByLabel('Session Name *').inputValue()).toBe('Grog and the Deck of Many Things');
    expect(await page.getByLabel('Session Date *').inputValue()).toBe('2026-02-07');
    expect(await page.getByLabel('Session Transcript').count()).toBe(0);
    expect(await page.getByLabel('Upload Audio').count()).toBe(0);
    await page.screenshot({ path: `${SHOTS}/session-edit.png`, fullPage: true });

    // No summary and the transcript untouched: nothing to save.
    await page.getByRole('button', { name: 'Save Changes' }).click();
    await expect.poll(() => alertText(page)).toBe(NO_CONTENT);

    // Name and summary only: the date and the transcript are not sent, so they stay as they were.
    await page.getByLabel('Session Name *').fill('Grog Draws a Card');
    await page.getByLabel('Session Summary').fill('Grog insists on drawing from the deck.');
    const put = page.waitForRequest(
      (r) => r.method() === 'PUT' && r.url().endsWith(`/transcripts/${session.id}`),
    );
    await page.getByRole('button', { name: 'Save Changes' }).click();
    expect((await put).postDataJSON()).toEqual({
      name: 'Grog Draws a Card',
      summary: 'Grog insists on drawing from the deck.',
    });
    await page.getByText('Session updated successfully').waitFor();
    await page.waitForURL((url) => url.pathname === `/sessions/${session.id}`);
    let stored = await api<Session>('GET', `/transcripts/${session.id}`);
    expect(stored).toMatchObject({
      name: 'Grog Draws a Card',
      summary: 'Grog insists on drawing from the deck.',
      session_timestamp: '2026-02-07T19:00:00.000Z',
      content: transcript,
    });

    // A new date and an edited transcript are sent.
    await page.goto(`/sessions/${session.id}/edit`);
    await page.getByRole('button', { name: 'Edit Transcript' }).click();
    const box = page.getByLabel('Session Transcript');
    expect(await box.inputValue()).toBe(transcript);
    const shorter = transcript.split('\n').slice(0, 5).join('\n');
    await box.fill(shorter);
    await page.getByLabel('Session Date *').fill('2026-02-08');
    await page.getByRole('button', { name: 'Save Changes' }).click();
    await page.getByText('Session updated successfully').first().waitFor();
    await page.waitForURL((url) => url.pathname === `/sessions/${session.id}`);
    stored = await api<Session>('GET', `/transcripts/${session.id}`);
    expect(stored.session_timestamp).toBe('2026-02-08T05:00:00.000Z');
    expect(stored.content).toBe(shorter);
    expect(stored.name).toBe('Grog Draws a Card');

    // A session without a transcript opens the editor at once.
    const bare = await api<Session>('POST', '/transcripts/manual', {
      name: 'Summary only',
      session_date: '2026-02-09T05:00:00.000Z',
      summary: 'A quiet night in Emon.',
    });
    await page.goto(`/sessions/${bare.id}/edit`);
    await page.getByLabel('Session Transcript').waitFor();
    expect(await page.getByText(/^Current transcript has/).count()).toBe(0);

    // Another user's session, or none: the load failure.
    await page.goto('/sessions/00000000-0000-4000-8000-000000000000/edit');
    await page.getByText('Failed to load session details.').waitFor();
    expect(await page.getByRole('button', { name: 'Save Changes' }).count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('looks right on a phone', async () => {
    const { page } = await newNyPage(browser, system.url, 390, 844);
    await signInLocally(page, 'Scanlan');
    await page.waitForURL('**/welcome');
    await page.goto('/add-session');
    await page.getByRole('heading', { name: 'Manually Add Session', level: 1 }).waitFor();
    await page.getByText(AUDIO_KEPT_UNTRANSCRIBED, { exact: false }).waitFor();
    await page.screenshot({ path: `${SHOTS}/session-create-mobile.png`, fullPage: true });
    expect(await pageScrollWidth(page)).toBeLessThanOrEqual(390);
    await expectFitsPhone(page);
  });
});

describe('session form with Deepgram configured (local peer)', () => {
  let system: TestSystem;
  let browser: Browser;
  let deepgram: DeepgramPeer;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'forms-audio-'));
    deepgram = await startDeepgramPeer();
    // Sessions keep the summaries the test gives them (summaries.test.ts covers automatic ones).
    system = await startSystem({ mode: 'embedded', env: { ...deepgram.env(), SUMMARY_AUTOMATIC: 'false' } });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
    await deepgram?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('checks the chosen file, and a chosen recording hides and clears the transcript box', async () => {
    const { page, errors } = await newNyPage(browser, system.url);
    await signInLocally(page, 'Pike');
    await page.waitForURL('**/welcome');
    const api = apiFor(system, page);
    await page.goto('/add-session');
    const input = page.getByLabel('Upload Audio');
    await expect.poll(() => input.isDisabled()).toBe(false);
    expect(await page.getByText(AUDIO_UPLOAD_UNAVAILABLE).count()).toBe(0);

    await input.setInputFiles({
      name: 'notes.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.from('%PDF-1.4'),
    });
    await page
      .getByText(
        'Invalid file type. Please select an audio file (MP3, M4A, WAV, etc.). Detected type: application/pdf',
      )
      .waitFor();
    expect(await input.inputValue()).toBe('');

    // A sparse file just over 500 MB: only its size is read.
    const big = path.join(dir, 'long-session.mp3');
    writeFileSync(big, '');
    truncateSync(big, 500 * 1024 * 1024 + 1);
    await input.setInputFiles(big);
    await page.getByText('File too large. Maximum size is 500MB. Selected file: 500.0MB').waitFor();
    expect(await input.inputValue()).toBe('');

    await page.getByLabel('Session Transcript').fill('MATT: Welcome to Critical Role.');
    await input.setInputFiles({ name: 'session.mp3', mimeType: 'audio/mpeg', buffer: Buffer.alloc(2048, 1) });
    await page.getByLabel('Session Transcript').waitFor({ state: 'detached' });
    await page.getByText('session.mp3').waitFor();
    await page.screenshot({ path: `${SHOTS}/session-create-audio.png`, fullPage: true });
    await page.getByRole('button', { name: 'Remove' }).click();
    expect(await page.getByLabel('Session Transcript').inputValue()).toBe('');
    expect(await api<Session[]>('GET', '/transcripts')).toEqual([]);
    expect(deepgram.requests).toHaveLength(0);
    expect(errors).toEqual([]);
  });

  it('uploads a recording with a progress bar, then the session is transcribed', async () => {
    const { page, errors } = await newNyPage(browser, system.url);
    await signInLocally(page, 'Vax');
    await page.waitForURL('**/welcome');
    const api = apiFor(system, page);
    const group = await api<{ id: string; group_id: string }>('POST', '/groups', { name: 'Vox Machina' });
    const recording = path.join(dir, 'episode-1.wav');
    writeFileSync(recording, wav(3 * 1024 * 1024, 'silence'));

    await page.goto(`/groups/${group.group_id}/add-session`);
    await page.getByLabel('Session Name *').fill('Recorded at the table');
    await page.getByLabel('Session Date *').fill('2026-04-02');
    await page.getByLabel('Session Summary').fill('The party reaches Kraghammer.');
    const input = page.getByLabel('Upload Audio');
    await expect.poll(() => input.isDisabled()).toBe(false);
    await input.setInputFiles(recording);

    // A slow uplink (about 1 MB/s), so that the upload takes long enough to watch it move.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 20,
      downloadThroughput: -1,
      uploadThroughput: 1024 * 1024,
    });
    await page.getByRole('button', { name: 'Create Session' }).click();
    await page.getByRole('button', { name: 'Creating...' }).waitFor();
    const bar = page.getByRole('progressbar', { name: 'Audio upload progress' });
    await bar.waitFor();
    await expect
      .poll(async () => Number(await bar.getAttribute('aria-valuenow')), { timeout: 20_000 })
      .toBeGreaterThan(0);
    await page.screenshot({ path: `${SHOTS}/session-create-uploading.png` });
    await page.getByText('Audio session created successfully').waitFor({ timeout: 30_000 });
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    await page.waitForURL((url) => url.pathname === `/groups/${group.group_id}`);

    const [created] = await api<Session[]>('GET', '/transcripts');
    expect(created).toMatchObject({
      name: 'Recorded at the table',
      group_id: group.group_id,
      summary: 'The party reaches Kraghammer.',
      session_timestamp: '2026-04-02T04:00:00.000Z',
      source: 'audio',
    });
    // The recording reaches the provider whole and its words become the transcript.
    await expect
      .poll(async () => (await api<Session>('GET', `/transcripts/${created!.id}`)).transcription_status, {
        timeout: 30_000,
      })
      .toBe('completed');
    expect(deepgram.requests.at(-1)?.bytes).toBe(3 * 1024 * 1024 + 44);
    const stored = await api<Session>('GET', `/transcripts/${created!.id}`);
    expect(stored.content).toContain('I roll for initiative.');
    expect(errors).toEqual([]);
  });
});
