import { DEFAULT_NOTIFY_LEVEL, NOTIFY_LEVELS, type NotifyLevel } from "@/lib/contracts";
import type { Models } from "@/models";

const isLevel = (value: unknown): value is NotifyLevel => NOTIFY_LEVELS.includes(value as NotifyLevel);

/** Each person's notification setting, beside their other defaults (models/person-settings.ts). */
export class NotifyLevels {
  constructor(private readonly model: Models["PersonSettings"]) {}

  async of(personId: string): Promise<NotifyLevel> {
    const row = await this.model.findById(personId, { notify: 1 }).lean();
    return isLevel(row?.notify) ? row.notify : DEFAULT_NOTIFY_LEVEL;
  }

  async set(personId: string, level: NotifyLevel): Promise<NotifyLevel> {
    await this.model.updateOne({ _id: personId }, { $set: { notify: level } }, { upsert: true });
    return level;
  }
}
