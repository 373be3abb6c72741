// The embedded database's own thread: one PGlite (its WASM instance and event loop) answering the
// main thread's queries, so database work and request handling use two cores. Plain JavaScript:
// Node runs it as it is, outside the application's bundle.
import { parentPort, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
import { usePreparedStatements } from "./pglite-prepared.mjs";

const identity = (value) => value;
const parsersOf = (oids) => Object.fromEntries((oids ?? []).map((oid) => [oid, identity]));

const db = await PGlite.create({ dataDir: workerData.dataDir, loadDataDir: workerData.loadDataDir });
if (workerData.prepared) usePreparedStatements(db, workerData.onePlan);
/** Open transactions by id: each holds PGlite's transaction open until commit or rollback. */
const open = new Map();

function answer(id, work) {
  work.then(
    (result) => parentPort.postMessage({ id, result }),
    (error) =>
      parentPort.postMessage({
        id,
        error: { message: error?.message ?? String(error), code: error?.code, detail: error?.detail, constraint: error?.constraint },
      }),
  );
}

parentPort.on("message", (m) => {
  switch (m.type) {
    case "query": {
      const target = m.tx ? open.get(m.tx)?.tx : db;
      if (!target) return answer(m.id, Promise.reject(new Error("no such transaction")));
      return answer(
        m.id,
        target.query(m.sql, m.params, { rowMode: m.rowMode, parsers: parsersOf(m.identityOids) }).then((r) => ({
          rows: r.rows,
          fields: r.fields,
          affectedRows: r.affectedRows,
        })),
      );
    }
    case "begin": {
      let started;
      let failedToStart;
      const ready = new Promise((resolve, reject) => ((started = resolve), (failedToStart = reject)));
      const entry = {};
      entry.done = db.transaction(async (tx) => {
        const end = new Promise((resolve, reject) => Object.assign(entry, { tx, commit: resolve, rollback: reject }));
        open.set(m.tx, entry);
        started();
        await end;
      });
      // A transaction that fails before its callback runs (BEGIN refused) answers the caller too.
      entry.done.catch((error) => failedToStart(error)).finally(() => open.delete(m.tx));
      return answer(
        m.id,
        ready.then(() => ({ ok: true })),
      );
    }
    case "commit":
    case "rollback": {
      const entry = open.get(m.tx);
      if (!entry?.commit) return answer(m.id, Promise.reject(new Error("no such transaction")));
      if (m.type === "commit") entry.commit();
      else entry.rollback(new Error("rolled back"));
      return answer(
        m.id,
        entry.done.then(
          () => ({ ok: true }),
          (error) => (m.type === "rollback" ? { ok: true } : Promise.reject(error)),
        ),
      );
    }
    case "close":
      return answer(
        m.id,
        db.close().then(() => ({ ok: true })),
      );
  }
});
parentPort.postMessage({ ready: true });
