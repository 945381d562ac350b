/**
 * A raw `subscriptions/listen` stream (MCP 2026-07-28) over real HTTP: its JSON-RPC messages are
 * collected as they arrive, and `ended` resolves when the server ends the stream.
 */

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "listen-test", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

export interface ListenStream {
  res: Response;
  messages: any[];
  /** Resolves when the stream ends (never rejects; not after close()). */
  ended: Promise<void>;
  close(): void;
}

export async function listen(
  base: string,
  key: string,
  id: number,
  notifications: Record<string, unknown> = { resourceSubscriptions: ["crew://briefing", "crew://agents"] },
): Promise<ListenStream> {
  const abort = new AbortController();
  const res = await fetch(`${base}/mcp`, {
    method: "POST",
    signal: abort.signal,
    headers: {
      Authorization: `Bearer ${key}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": "subscriptions/listen",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "subscriptions/listen", params: { notifications, _meta: META } }),
  });
  const messages: any[] = [];
  let ended: Promise<void> = Promise.resolve();
  if (res.headers.get("content-type")?.includes("text/event-stream") && res.body) {
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    ended = (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          buffer += decoder.decode(value, { stream: true });
          let end = buffer.indexOf("\n\n");
          while (end >= 0) {
            const data = buffer
              .slice(0, end)
              .split("\n")
              .find((l) => l.startsWith("data: "));
            if (data) messages.push(JSON.parse(data.slice(6)));
            buffer = buffer.slice(end + 2);
            end = buffer.indexOf("\n\n");
          }
        }
      } catch {}
    })();
  } else {
    messages.push(await res.json());
  }
  return { res, messages, ended, close: () => abort.abort() };
}

export async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}
