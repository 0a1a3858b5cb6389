// Audio sessions: the upload's hand-off from the gateway to the transcript service and the
// durable transcription job.

/** Said by the server (400) and by the session form before any upload when no provider is set. */
export const AUDIO_UPLOAD_UNAVAILABLE =
  'Audio upload is not available: no speech-to-text provider is configured on this server.';
