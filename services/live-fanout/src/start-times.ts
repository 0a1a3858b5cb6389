/** Session start times of recent sessions, the oldest forgotten first (a Map keeps insertion order). */
export class StartTimes {
  readonly #map = new Map<string, string>();
  constructor(private readonly max: number) {}

  get(transcriptId: string): string | null {
    return this.#map.get(transcriptId) ?? null;
  }

  set(transcriptId: string, startTime: string): void {
    if (this.#map.get(transcriptId) === startTime) return;
    this.#map.delete(transcriptId);
    this.#map.set(transcriptId, startTime);
    if (this.#map.size > this.max) this.#map.delete(this.#map.keys().next().value!);
  }

  delete(transcriptId: string): void {
    this.#map.delete(transcriptId);
  }
}
