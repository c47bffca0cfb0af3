/** Headers of the unsubscribe pages: nothing loads, nothing frames them, the token leaks to no referrer. */
export const PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
};

const page = (title: string, body: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}
button{font-size:1rem;padding:.6rem 1.2rem;border-radius:.3rem;border:1px solid #444;background:#fff;cursor:pointer}</style>
</head>
<body>
${body}
</body>
</html>
`;

/**
 * The page a link opens (GET): one button that POSTs to the same address. Opening the page changes
 * nothing: mail scanners and link previews fetch links, and must not unsubscribe anyone.
 */
export const CONFIRM_PAGE = page(
  'Unsubscribe',
  `<h1>Unsubscribe</h1>
<p>Stop receiving these e-mails?</p>
<form method="post">
<input type="hidden" name="List-Unsubscribe" value="One-Click">
<button type="submit">Unsubscribe</button>
</form>`,
);

/** The answer of the button's POST, for a browser. */
export const DONE_PAGE = page(
  'Unsubscribed',
  '<h1>You are unsubscribed</h1>\n<p>You will receive no more of these e-mails.</p>',
);
