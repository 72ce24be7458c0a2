/** Runner text without its ANSI colour codes. */
// eslint-disable-next-line no-control-regex
export const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');
