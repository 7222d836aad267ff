import { describe, expect, it } from "vitest";
import { setQuotaBody } from "@/lib/contracts";
import { quotaBodyOf, quotaFormOf, quotaIssuesByField } from "./quota-form";
import { effectiveQuota, quotaView, settingOfBody, storedSetting } from "./quota-setting";

const DEFAULT = { day: { tokens: 1_000 }, month: { usd: 5 } };
const parse = (body: unknown) => setQuotaBody.parse(body);

describe("an account's quota setting", () => {
  it("replaces the default whole: none is no limit, custom is only the limits given, no setting is the default", () => {
    expect(effectiveQuota(null, DEFAULT)).toEqual(DEFAULT);
    expect(effectiveQuota({ kind: "none" }, DEFAULT)).toEqual({});
    expect(effectiveQuota({ kind: "custom", day: { tokens: 50 } }, DEFAULT)).toEqual({ day: { tokens: 50 } });
  });

  it("is stored from a valid form, and read back from what is stored", () => {
    expect(settingOfBody(parse({ kind: "default" }))).toBeNull();
    expect(settingOfBody(parse({ kind: "none" }))).toEqual({ kind: "none" });
    const custom = settingOfBody(parse({ kind: "custom", day: { tokens: 50 }, month: {} }));
    expect(custom).toEqual({ kind: "custom", day: { tokens: 50 } });
    expect(storedSetting(custom)).toEqual(custom);
    expect(storedSetting(undefined)).toBeNull();
    expect(storedSetting({ kind: "weird" })).toBeNull();
  });

  it("is shown with the spend of the day and month and when each resets", () => {
    const used = { day: { tokens: 10, usd: 0 }, month: { tokens: 20, usd: 0.5 } };
    const view = quotaView(null, DEFAULT, used, new Date("2026-12-03T10:00:00Z"));
    expect(view).toEqual({
      source: "default",
      day: { tokens: 1_000 },
      month: { usd: 5 },
      used,
      resetsAt: { day: "2026-12-04T00:00:00.000Z", month: "2027-01-01T00:00:00.000Z" },
    });
  });
});

describe("the Edit quota form", () => {
  it("sends what is typed, numbers as numbers, and puts each refusal under its own box", () => {
    const form = { ...quotaFormOf(undefined), kind: "custom" as const, dayTokens: "50,000", monthUsd: "$2.50", dayUsd: "lots" };
    const body = quotaBodyOf(form);
    expect(body).toEqual({ kind: "custom", day: { tokens: 50_000, usd: "lots" }, month: { usd: 2.5 } });
    const result = setQuotaBody.safeParse(body);
    expect(result.success).toBe(false);
    const issues = result.error!.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
    expect(quotaIssuesByField(issues)).toEqual({ dayUsd: ["Give an amount in dollars, like 2.50."] });
    expect(quotaIssuesByField([{ path: "form", message: "Set at least one limit" }])).toEqual({ form: ["Set at least one limit"] });
  });

  it("starts from the account's own figures, blank for the default", () => {
    const view = quotaView(
      { kind: "custom", month: { tokens: 9 } },
      DEFAULT,
      { day: { tokens: 0, usd: 0 }, month: { tokens: 0, usd: 0 } },
      new Date(),
    );
    expect(quotaFormOf(view)).toEqual({ kind: "custom", dayTokens: "", dayUsd: "", monthTokens: "9", monthUsd: "" });
    const fallback = quotaView(null, DEFAULT, { day: { tokens: 0, usd: 0 }, month: { tokens: 0, usd: 0 } }, new Date());
    expect(quotaFormOf(fallback)).toMatchObject({ kind: "default", dayTokens: "" });
  });
});
