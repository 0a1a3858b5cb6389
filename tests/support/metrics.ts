/**
 * How often the gateway of the process at `opsUrl` answered a read of one session with
 * `result` (`chronicler_gateway_content_reads_total`, read from its /metrics); 0 before the first.
 */
export async function contentReads(opsUrl: string, result: string): Promise<number> {
  const text = await (await fetch(`${opsUrl}/metrics`)).text();
  const m = new RegExp(`^chronicler_gateway_content_reads_total\\{result="${result}"\\} (\\d+)`, 'm').exec(
    text,
  );
  return m ? Number(m[1]) : 0;
}
