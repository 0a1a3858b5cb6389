import { ServiceError } from '@chronicler/kit';
import { describe, expect, it } from 'vitest';
import { userMessage } from '../lib/relay-socket.ts';
import { publicMessage } from './errors.ts';

describe('what a client is told of a service error', () => {
  it('never names a bus subject: the transport errors become generic messages', () => {
    expect(publicMessage(new ServiceError('unavailable', 'No service answers svc.transcript.get'))).toBe(
      'Service temporarily unavailable. Please try again.',
    );
    expect(publicMessage(new ServiceError('timeout', 'No reply from t1.svc.chat.send within 5000 ms'))).toBe(
      'The service took too long to answer. Please try again.',
    );
    expect(
      publicMessage(
        new ServiceError('payload_too_large', 'Message too large for svc.transcript.create-manual'),
      ),
    ).toBe('The request is too large.');
    expect(publicMessage(new ServiceError('internal', 'Internal error in svc.group.list'))).toBe(
      'Internal server error',
    );
  });

  it('keeps the messages services write for the user, 503s included', () => {
    expect(publicMessage(new ServiceError('not_found', 'Transcript not found'))).toBe('Transcript not found');
    expect(
      publicMessage(
        new ServiceError('unavailable', 'The AI service is unavailable. Please try again later.'),
      ),
    ).toBe('The AI service is unavailable. Please try again later.');
  });

  it('the chat and planning sockets send the same words in their error frames', () => {
    expect(userMessage(new ServiceError('unavailable', 'No service answers svc.planning.send'))).toBe(
      'Service temporarily unavailable. Please try again.',
    );
    expect(userMessage(new ServiceError('bad_request', 'Message cannot be empty'))).toBe(
      'Message cannot be empty',
    );
    expect(userMessage(new Error('boom at svc.chat.send'))).toBe('Internal server error');
  });
});
