// Usage records (transcription seconds, AI requests) and the per-user stats built from them.
export {};
