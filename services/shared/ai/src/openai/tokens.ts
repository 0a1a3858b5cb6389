/**
 * Token counts for sizing requests to the model's context. OpenAI's own models are counted
 * with their real tokenizer (gpt-tokenizer: o200k_base for the GPT-4o / GPT-4.1 / GPT-5 / o
 * families, cl100k_base for GPT-4 and GPT-3.5); any other model (Llama, Mistral, Qwen behind
 * Ollama or vLLM) is estimated at 3 characters per token, which over-counts English text for
 * those tokenizers (about 3.5 to 4.5 characters per token), so a request sized by it fits.
 */
export interface TokenCounter {
  /** 'o200k_base', 'cl100k_base' or 'estimate'. */
  readonly method: string;
  count(text: string): number;
}

/** Characters per token assumed for models whose tokenizer is unknown. */
const SAFE_CHARS_PER_TOKEN = 3;

export const estimateCounter: TokenCounter = {
  method: 'estimate',
  count: (text) => Math.ceil(text.length / SAFE_CHARS_PER_TOKEN),
};

/** Which OpenAI encoding a model id uses, or null for a model that is not OpenAI's. */
export function openAiEncodingOf(model: string): 'o200k_base' | 'cl100k_base' | null {
  const id = model.toLowerCase().replace(/^openai\//, '');
  if (/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o\d|chatgpt-4o|gpt-oss)/.test(id)) return 'o200k_base';
  if (/^(gpt-4|gpt-3\.5)/.test(id)) return 'cl100k_base';
  return null;
}

/** The counter for a model: its real tokenizer when it is one of OpenAI's, else the estimate. */
export async function tokenCounterFor(model: string): Promise<TokenCounter> {
  const encoding = openAiEncodingOf(model);
  if (encoding === 'o200k_base') {
    const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
    return { method: encoding, count: (text) => countTokens(text) };
  }
  if (encoding === 'cl100k_base') {
    const { countTokens } = await import('gpt-tokenizer/encoding/cl100k_base');
    return { method: encoding, count: (text) => countTokens(text) };
  }
  return estimateCounter;
}

/** Tokens a chat request's messages take: their text plus a few tokens of framing each. */
export function countMessages(counter: TokenCounter, messages: { content: string }[]): number {
  return messages.reduce((n, m) => n + counter.count(m.content) + 4, 3);
}
