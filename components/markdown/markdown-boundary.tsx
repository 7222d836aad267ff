"use client";

import { Component, type ErrorInfo, type ReactNode } from "react";
import { PlainText } from "./plain-text";

export const FORMAT_FAILED_NOTE = "This message could not be formatted; showing it as plain text.";

interface Props {
  /** The markdown source the children render: shown instead when they throw. */
  text: string;
  children: ReactNode;
}

interface State {
  failed: boolean;
  /** The text the current `failed` is about: new text gets a fresh try. */
  text: string;
}

/**
 * Contains a render error to one message: without it, a throw while formatting model
 * text replaces the whole chat with Next's error page, and a reload renders the same
 * text again. Resets when the text changes (not by remounting: a key on streaming text
 * would rebuild the message's DOM on every token).
 */
export class MarkdownBoundary extends Component<Props, State> {
  state: State = { failed: false, text: this.props.text };
  /** One report per message: streaming would otherwise log the same failure per token. */
  private reported = false;

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    return props.text === state.text ? null : { failed: false, text: props.text };
  }

  static getDerivedStateFromError(): Partial<State> {
    return { failed: true };
  }

  componentDidCatch(error: unknown, info: ErrorInfo): void {
    if (this.reported) return;
    this.reported = true;
    console.error("Markdown could not be rendered; showing plain text.", error, info.componentStack);
  }

  render(): ReactNode {
    return this.state.failed ? <PlainText text={this.props.text} note={FORMAT_FAILED_NOTE} /> : this.props.children;
  }
}
