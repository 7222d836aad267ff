export type { TurnView, TurnViewStatus } from "@/lib/chat/session-state";
