import { describe, expect, it } from "vitest";
import { z } from "zod";
import { storedCodec, StateUnreadableError } from "@/server/db/codecs/codec";
import { checkpointCodec, pendingCallCodec } from "@/server/db/codecs/checkpoint";
import { runEventCodec } from "@/server/db/codecs/run-event";
import { grantBoundsCodec } from "@/server/db/codecs/grant-bounds";

/** A shape at version 3: `name` split from `fullName` in 2, `tags` added in 3. */
const person = storedCodec({
  shape: "person",
  version: 3,
  schema: z.strictObject({ first: z.string(), last: z.string(), tags: z.array(z.string()) }),
  upcasters: {
    1: ({ fullName, ...rest }) => {
      const [first = "", ...last] = String(fullName).split(" ");
      return { ...rest, first, last: last.join(" ") };
    },
    2: (value) => ({ ...value, tags: [] }),
  },
  versionKey: "v",
});

const unreadable = (read: () => unknown) => {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(StateUnreadableError);
    return (error as StateUnreadableError).details;
  }
  throw new Error("expected STATE_UNREADABLE");
};

describe("stored codecs", () => {
  it("writes the current version with the value and reads it back without it", () => {
    const stored = person.encode({ first: "Ada", last: "Lovelace", tags: ["math"] });
    expect(stored).toEqual({ first: "Ada", last: "Lovelace", tags: ["math"], v: 3 });
    expect(person.decode(JSON.parse(JSON.stringify(stored)))).toEqual({ first: "Ada", last: "Lovelace", tags: ["math"] });
  });

  it("upcasts every earlier version, one step at a time; a value without a version is version 1", () => {
    expect(person.decode({ fullName: "Grace Brewster Hopper" })).toEqual({ first: "Grace", last: "Brewster Hopper", tags: [] });
    expect(person.decode({ v: 2, first: "Alan", last: "Turing" })).toEqual({ first: "Alan", last: "Turing", tags: [] });
  });

  it("refuses a value of a newer release, naming the shape and the version field", () => {
    expect(unreadable(() => person.decode({ v: 4, first: "A", last: "B", tags: [] }))).toEqual({ shape: "person", field: "v" });
  });

  it("names the field a damaged value gets wrong", () => {
    expect(unreadable(() => person.decode({ v: 3, first: "A", last: 7, tags: [] }))).toEqual({ shape: "person", field: "last" });
    expect(unreadable(() => person.decode("not json"))).toEqual({ shape: "person", field: "" });
  });

  it("takes the version from a column when the value is a record whose keys are not Harbor's", () => {
    const bounds = { v: { equals: "a tool argument named v" }, amount: { atMost: 100 } };
    expect(grantBoundsCodec.encode(bounds)).toEqual(bounds);
    expect(grantBoundsCodec.decode(bounds, 1)).toEqual(bounds);
    expect(unreadable(() => grantBoundsCodec.decode(bounds, 2))).toMatchObject({ shape: "grant bounds" });
  });

  it("refuses to be built without an upcaster for every earlier version", () => {
    expect(() => storedCodec({ shape: "gap", version: 2, schema: z.object({}), upcasters: {} })).toThrow(/no upcaster from version 1/);
  });

  it("reads a checkpoint written before versioning, and versions each pending call on its own", () => {
    const legacy = { step: 2, calls: [{ toolCallId: "c1", name: "send_email", args: { to: "jo@example.com" }, gate: { id: "g1" } }] };
    const read = checkpointCodec.decode(legacy);
    expect(read).toEqual({ version: 1, ...legacy });
    const stored = checkpointCodec.encode(read);
    expect(stored).toMatchObject({ version: 1, calls: [{ v: 2, toolCallId: "c1" }] });
    expect(checkpointCodec.decode(JSON.parse(JSON.stringify(stored)))).toEqual(read);
    expect(unreadable(() => checkpointCodec.decode({ ...legacy, calls: [{ v: 9, toolCallId: "c1" }] }))).toEqual({
      shape: "pending call",
      field: "v",
    });
  });

  it("reads a gate's bare binding of 0.1.0 as the scheme it was made with", () => {
    const call = { toolCallId: "c1", name: "pay", args: {}, gate: { id: "g1", binding: "abc123" } };
    expect(pendingCallCodec.decode(call).gate?.binding).toEqual({ scheme: "agent", digest: "abc123" });
    expect(pendingCallCodec.decode({ ...call, v: 2, gate: { id: "g1", binding: { scheme: "tool", digest: "d" } } }).gate?.binding).toEqual({
      scheme: "tool",
      digest: "d",
    });
  });

  it("reads every event type back as written", () => {
    const event = { type: "pause.resumed", pauseId: "p", runId: "r", decision: "approved", actorId: "u" } as const;
    expect(runEventCodec.decode(runEventCodec.encode(event))).toEqual(event);
    expect(unreadable(() => runEventCodec.decode({ type: "run.teleported" }))).toMatchObject({ shape: "run event", field: "type" });
  });
});
