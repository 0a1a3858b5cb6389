import { describe, expect, it } from 'vitest';
import { ServiceError } from '../errors.ts';
import { BusNamespace, isValidSubject, matchSubject, sanitizeName, subjectsOverlap } from './subject.ts';

describe('subjects', () => {
  it('matches * against exactly one token and > against one or more trailing tokens', () => {
    expect(matchSubject('evt.*.created', 'evt.group.created')).toBe(true);
    expect(matchSubject('evt.*.created', 'evt.group.x.created')).toBe(false);
    expect(matchSubject('evt.*', 'evt')).toBe(false);
    expect(matchSubject('evt.>', 'evt.a')).toBe(true);
    expect(matchSubject('evt.>', 'evt.a.b.c')).toBe(true);
    expect(matchSubject('evt.>', 'evt')).toBe(false);
    expect(matchSubject('>', 'anything.at.all')).toBe(true);
    expect(matchSubject('a.b', 'a.b')).toBe(true);
    expect(matchSubject('a.b', 'a.b.c')).toBe(false);
    expect(matchSubject('a.b.c', 'a.b')).toBe(false);
  });

  it('tells whether two patterns can match the same subject', () => {
    expect(subjectsOverlap('a.>', 'a.b.c')).toBe(true);
    expect(subjectsOverlap('a.*', 'a.b')).toBe(true);
    expect(subjectsOverlap('a.*', 'a.b.c')).toBe(false);
    expect(subjectsOverlap('a.*.c', 'a.b.*')).toBe(true);
    expect(subjectsOverlap('a.x', 'a.y')).toBe(false);
    expect(subjectsOverlap('a.>', 'a')).toBe(false);
    expect(subjectsOverlap('>', 'x')).toBe(true);
  });

  it('accepts wildcards only where asked, and only as whole tokens in the right place', () => {
    expect(isValidSubject('svc.auth.login', { wildcards: false })).toBe(true);
    expect(isValidSubject('svc.*.login', { wildcards: false })).toBe(false);
    expect(isValidSubject('svc.*.login', { wildcards: true })).toBe(true);
    expect(isValidSubject('svc.>.login', { wildcards: true })).toBe(false);
    for (const bad of ['', 'a..b', '.a', 'a.', 'a b', 'a\tb']) {
      expect(isValidSubject(bad, { wildcards: true })).toBe(false);
    }
  });

  it('prefixes subjects and names, and strips the prefix again', () => {
    const ns = new BusNamespace('chronicler.dev');
    expect(ns.subject('svc.auth.login')).toBe('chronicler.dev.svc.auth.login');
    expect(ns.strip('chronicler.dev.svc.auth.login')).toBe('svc.auth.login');
    expect(ns.stream('transcripts')).toBe('chronicler_dev_transcripts');
    expect(ns.streamName('chronicler_dev_transcripts')).toBe('transcripts');
    expect(ns.durable('summary.worker')).toBe('chronicler_dev_summary_worker');
    expect(ns.bucket('audio files')).toBe('chronicler_dev_audio_files');
    expect(sanitizeName('a.b*c>d e/f')).toBe('a_b_c_d_e_f');
    expect(() => ns.subject('svc.*')).toThrow(ServiceError);
    expect(() => new BusNamespace('bad prefix')).toThrow(ServiceError);
  });
});
