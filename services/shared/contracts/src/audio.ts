// Audio sessions: the upload's hand-off from the gateway to the transcript service and the
// durable transcription job. Filled in with the audio pipeline.
export {};
