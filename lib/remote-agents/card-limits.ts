/** The ceilings of every string and list Delegate reads from an agent card (card.ts, card-sign-in.ts). */
export const CARD_LIMITS = {
  name: 200,
  description: 4000,
  skills: 50,
  skillText: 1000,
  skillList: 20,
  tag: 100,
  url: 2048,
  interfaces: 20,
  token: 100,
} as const;
