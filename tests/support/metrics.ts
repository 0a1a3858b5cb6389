/**
 * How often the gateway of the process at `opsUrl` answered a read of one session with
 * `result` (`chronicler_gateway_content_reads_total`, read from its /metrics); 0 before the first.
 */
export function contentReads(opsUrl: string, result: string): Promise<number> {
  return counter(opsUrl, 'chronicler_gateway_content_reads_total', result);
}

/** The same for a page of the session list (`chronicler_gateway_list_reads_total`). */
export function listReads(opsUrl: string, result: string): Promise<number> {
  return counter(opsUrl, 'chronicler_gateway_list_reads_total', result);
}

async function counter(opsUrl: string, name: string, result: string): Promise<number> {
  const text = await (await fetch(`${opsUrl}/metrics`)).text();
  const m = new RegExp(`^${name}\\{result="${result}"\\} (\\d+)`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}
