/**
 * Display text, tool names, reasons and replies come from the model or from chat users, so
 * they must not be able to ping anyone or dress a link up as another address. The breaks are
 * zero-width spaces: invisible, harmless inside code spans (where a backslash escape would
 * show), and they need no knowledge of where a platform thinks code begins.
 */
export const ZERO_WIDTH_SPACE = '\u200b';

/**
 * `@channel`, `@here`, `@all`, `@everyone`, `@someone`: a mention needs `@` joined to the
 * name. Mattermost's mention parser splits words at any character that is not a letter,
 * digit or one of `:._-@`, so `@` + zero-width space + `channel` mentions no one; Discord
 * and Slack read the same text as plain text too.
 */
export function breakMentions(text: string): string {
  return text.replace(/@/g, `@${ZERO_WIDTH_SPACE}`);
}

/**
 * Markdown links (`[bank.com](https://evil)`, `[bank.com][ref]`, `[ref]: https://evil`) need
 * the `]` of the link text directly followed by `(`, `[` or `:`. A zero-width space after every
 * `]` leaves the brackets and the real address on screen, where the platform shows the address
 * as it is; backslashes in the text cannot undo it the way they undo a backslash escape.
 */
export function breakMarkdownLinks(text: string): string {
  return text.replace(/\]/g, `]${ZERO_WIDTH_SPACE}`);
}
