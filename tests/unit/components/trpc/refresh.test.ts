import { QueryClient, QueryObserver } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { refreshNow } from "@/components/trpc/refresh";

/** A list on a server: a fetch reads it when it is sent and answers when `answer()` is called. */
function slowList() {
  let items: string[] = [];
  const waiting: (() => void)[] = [];
  return {
    add: (item: string) => void (items = [...items, item]),
    fetch: () => {
      const read = items;
      return new Promise<string[]>((resolve) => waiting.push(() => resolve(read)));
    },
    answerAll: () => waiting.splice(0).forEach((answer) => answer()),
  };
}

async function watched(list: ReturnType<typeof slowList>) {
  const client = new QueryClient();
  const observer = new QueryObserver(client, { queryKey: ["requests"], queryFn: list.fetch });
  const stop = observer.subscribe(() => {});
  await Promise.resolve();
  return { client, observer, stop };
}

describe("refreshNow", () => {
  it("refetches after a change that came while the query's first fetch was still on its way", async () => {
    const list = slowList();
    const { client, observer, stop } = await watched(list);
    // The first fetch read the empty list; then the run paused and asked for a refresh.
    list.add("gate");
    const refreshed = refreshNow(client, ["requests"]);
    list.answerAll();
    await new Promise((resolve) => setTimeout(resolve, 0));
    list.answerAll();
    await refreshed;
    expect(observer.getCurrentResult().data).toEqual(["gate"]);
    stop();
  });

  it("is needed: invalidating alone keeps the first fetch's stale answer", async () => {
    const list = slowList();
    const { client, observer, stop } = await watched(list);
    list.add("gate");
    const invalidated = client.invalidateQueries({ queryKey: ["requests"] });
    list.answerAll();
    await invalidated;
    expect(observer.getCurrentResult().data).toEqual([]);
    stop();
  });
});
