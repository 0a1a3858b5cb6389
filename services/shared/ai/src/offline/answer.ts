/**
 * Offline answers: retrieval, not writing. The transcript service finds the passages that best
 * match the question on its full-text index (`svc.transcript.passages`); the reply quotes them
 * best first, each starting with the line that answers, then the lines that follow it, with
 * their times (links to the moment in a campaign, where the times alone name no session).
 */
import { formatOffset, RUNS_THE_GAME, type Passage, type PassageLine } from '@chronicler/contracts';
import type { AnswerInput } from '../engine.ts';
import { cut, offlineText } from './lines.ts';

function quote(line: PassageLine, link: string | null): string {
  const time = line.seconds === null ? '' : formatOffset(line.seconds);
  const stamp = time ? (link ? `[${time}](${link}) ` : `[${time}] `) : '';
  return `> ${stamp}${line.speaker ? `${line.speaker}: ` : ''}${cut(line.text, 600)}`;
}

/** A passage as quoted: the answering line first, then what was said after it. */
function passageText(p: Passage, campaign: boolean): string {
  const link = (l: PassageLine) =>
    campaign && l.seconds !== null ? `/sessions/${p.transcript_id}#t=${formatOffset(l.seconds)}` : null;
  const lines = p.lines.slice(p.hit).map((l) => quote(l, link(l)));
  const from = campaign
    ? `From [${p.transcript_name}](${p.link}), ${p.session_timestamp.slice(0, 10)}:\n`
    : '';
  return from + lines.join('\n>\n');
}

export function answerText(input: AnswerInput): string {
  const campaign = input.scope === 'campaign';
  const where = campaign ? "the campaign's sessions" : 'the transcript';
  const { passages, speakers, sessions } = input.found;
  if (sessions.length === 0) {
    return offlineText(
      campaign
        ? 'This campaign has no sessions yet, so there is nothing to quote.'
        : 'The transcript is empty.',
    );
  }
  const out: string[] = [];
  const [top, next] = speakers;
  if (!campaign && RUNS_THE_GAME.test(input.question) && top && (!next || top.words > next.words * 1.5)) {
    out.push(
      `${top.speaker} says ${Math.round(100 * top.share)}% of the words in this session, far more than anyone else: at a table that is usually the game master.`,
    );
    out.push(quote(top.first, null));
  }
  if (passages.length === 0 && out.length === 0) {
    return offlineText(`No line of ${where} matches the words of the question.`);
  }
  if (passages.length > 0) out.push(`The passages of ${where} that best match the question, best first:`);
  for (const p of passages) out.push(passageText(p, campaign));
  return offlineText(out.join('\n\n'));
}
