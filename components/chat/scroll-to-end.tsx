/**
 * The server-rendered message list opens at its end, as the hydrated one does: a line of
 * script right after it scrolls it down while the HTML is parsed, before the first paint
 * (it waits for the stylesheet, so the heights are final). Without it the first paint
 * shows the top of the newest turns until the app's script has loaded and hydrated.
 * Inline, so it needs the response's CSP nonce (server/http/headers.ts).
 */
export function ScrollListToEnd({ nonce }: { nonce: string | undefined }) {
  return (
    <script
      nonce={nonce}
      // The browser hides a nonce from the DOM once the script ran; React need not compare it.
      suppressHydrationWarning
      dangerouslySetInnerHTML={{
        __html: `(function(){var l=document.querySelector('[data-testid="message-list"]');if(l)l.scrollTop=l.scrollHeight})()`,
      }}
    />
  );
}
