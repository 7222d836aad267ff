import mongoose, { Schema, type Connection } from "mongoose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDatabaseUri } from "@/test/support/server/database";

/**
 * Every mongoose operation the app relies on, run against the test database server, so a
 * gap in a MongoDB-wire-compatible server shows up here as a named failing test rather
 * than as a mystery deep inside a feature test.
 */
let conn: Connection;
const makeItem = (c: Connection) => c.model("Item", itemSchema);
let Item: ReturnType<typeof makeItem>;

const itemSchema = new Schema(
  {
    _id: String,
    owner: { type: String, required: true },
    title: String,
    count: { type: Number, default: 0 },
    tags: [String],
    nested: { a: Number, b: String },
  },
  { timestamps: true },
);
itemSchema.index({ owner: 1, updatedAt: -1 });
itemSchema.index({ owner: 1, title: 1 }, { unique: true });

beforeAll(async () => {
  conn = await mongoose.createConnection(testDatabaseUri("compat")).asPromise();
  Item = makeItem(conn);
});
afterAll(async () => {
  await conn?.dropDatabase();
  await conn?.close();
});

describe("mongoose operations on the test database server", () => {
  it("creates indexes, including a unique one, and reports duplicate keys as 11000", async () => {
    await Item.syncIndexes();
    await Item.create({ _id: "a", owner: "u1", title: "x" });
    const err = await Item.create({ _id: "b", owner: "u1", title: "x" }).catch((e: unknown) => e);
    expect((err as { code?: number }).code).toBe(11000);
  });

  // Without a projection: FerretDB 1.x has none on findAndModify, so the app asks for none.
  it('findOneAndUpdate with upsert and returnDocument "after"', async () => {
    const doc = await Item.findOneAndUpdate(
      { _id: "c" },
      { $setOnInsert: { owner: "u2" }, $set: { title: "made" }, $inc: { count: 2 } },
      { upsert: true, returnDocument: "after" },
    ).lean();
    expect(doc).toMatchObject({ _id: "c", owner: "u2", title: "made", count: 2 });
  });

  it("$push, $inc and $set in one update, and dotted paths", async () => {
    await Item.updateOne({ _id: "c" }, { $push: { tags: { $each: ["t1", "t2"] } }, $inc: { count: 1 }, $set: { "nested.a": 7 } });
    const doc = await Item.findById("c").lean();
    expect(doc?.tags).toEqual(["t1", "t2"]);
    expect(doc?.count).toBe(3);
    expect(doc?.nested?.a).toBe(7);
  });

  it("bulkWrite with updateOne upserts keeps order and counts", async () => {
    const res = await Item.bulkWrite(
      [
        { updateOne: { filter: { _id: "d" }, update: { $set: { owner: "u3", title: "d" } }, upsert: true } },
        { updateOne: { filter: { _id: "d" }, update: { $inc: { count: 5 } } } },
      ],
      { ordered: true },
    );
    expect(res.upsertedCount).toBe(1);
    expect((await Item.findById("d").lean())?.count).toBe(5);
  });

  it("find with sort, limit, projection and $in; countDocuments; updateMany; deleteMany", async () => {
    await Item.insertMany([
      { _id: "e1", owner: "u4", title: "one" },
      { _id: "e2", owner: "u4", title: "two" },
      { _id: "e3", owner: "u4", title: "three" },
    ]);
    const list = await Item.find({ owner: "u4" }, { title: 1 }).sort({ title: 1 }).limit(2).lean();
    expect(list.map((d) => d.title)).toEqual(["one", "three"]);
    const some = await Item.find({ _id: { $in: ["e1", "e3"] } }).lean();
    expect(some).toHaveLength(2);
    expect(await Item.countDocuments({ owner: "u4" })).toBe(3);
    const upd = await Item.updateMany({ owner: "u4" }, { $set: { count: 9 } });
    expect(upd.modifiedCount).toBe(3);
    const del = await Item.deleteMany({ owner: "u4", title: { $ne: "one" } });
    expect(del.deletedCount).toBe(2);
  });

  it("stores strings with unicode edge cases and NUL intact", async () => {
    const title = "RTL \u202Eabc \u200B zero-width, emoji 🧪, NUL \u0000 end";
    await Item.create({ _id: "u", owner: "u5", title });
    expect((await Item.findById("u").lean())?.title).toBe(title);
  });

  it("stores a 4 MB string and reads it back whole", async () => {
    const big = "x".repeat(4 * 1024 * 1024);
    await Item.create({ _id: "big", owner: "u6", title: big });
    expect((await Item.findById("big").lean())?.title?.length).toBe(big.length);
  });

  it("timestamps are set and updatedAt moves on update", async () => {
    const before = await Item.findById("c").lean();
    await new Promise((r) => setTimeout(r, 5));
    await Item.updateOne({ _id: "c" }, { $set: { title: "again" } });
    const after = await Item.findById("c").lean();
    expect(after!.updatedAt.getTime()).toBeGreaterThan(before!.updatedAt.getTime());
  });
});

/**
 * The event store's append-only writes (server/data/event-store.ts): new steps set at
 * indices past the array's end, text pushed onto a field of an existing element, counts
 * incremented on it, all in one update guarded by a counter in the filter, so a retried
 * update that already landed matches nothing.
 */
describe("guarded appends into an array of subdocuments", () => {
  const stepSchema = new Schema(
    { text: { type: String, default: "" }, textParts: { type: [String], default: undefined }, textChunks: Number },
    { _id: false },
  );
  const docSchema = new Schema(
    { _id: String, steps: { type: [stepSchema], default: () => [] }, appendSeq: { type: Number, default: 0 } },
    { versionKey: false },
  );
  const makeDoc = (c: Connection) => c.model("AppendDoc", docSchema);

  it("sets new indices past the end, pushes onto an element's field and increments it, once per counter value", async () => {
    const Doc = makeDoc(conn);
    await Doc.create({ _id: "d1" });
    const first = await Doc.updateOne(
      { _id: "d1", appendSeq: 0 },
      { $set: { "steps.0": { text: "ab" }, "steps.1": { text: "" } }, $inc: { appendSeq: 1 } },
    );
    expect(first.matchedCount).toBe(1);
    const second = {
      $push: { "steps.0.textParts": "cd", "steps.1.textParts": "x" },
      $set: Object.fromEntries(Array.from({ length: 10 }, (_, k) => [`steps.${k + 2}`, { text: `s${k + 2}` }])),
      $inc: { appendSeq: 1, "steps.1.textChunks": 2 },
    };
    expect((await Doc.updateOne({ _id: "d1", appendSeq: 1 }, second)).matchedCount).toBe(1);
    // The same update retried (its reply lost) finds the counter moved on and changes nothing.
    expect((await Doc.updateOne({ _id: "d1", appendSeq: 1 }, second)).matchedCount).toBe(0);
    await Doc.updateOne({ _id: "d1", appendSeq: 2 }, { $push: { "steps.0.textParts": "ef" }, $inc: { appendSeq: 1 } });
    const doc = await Doc.findById("d1").lean();
    expect(doc?.appendSeq).toBe(3);
    expect(doc?.steps).toHaveLength(12);
    expect(doc?.steps[0]).toEqual({ text: "ab", textParts: ["cd", "ef"] });
    expect(doc?.steps[1]).toEqual({ text: "", textParts: ["x"], textChunks: 2 });
    expect(doc?.steps[11]).toEqual({ text: "s11" });
  });
});
