/**
 * Text inside a tagged block tine writes for the model (`<fork-report from="…">`,
 * `<instructions file="…">`): text that is data, not tine's words, so nothing in it can open or
 * close a block of the same tag, and an attribute's value cannot end the attribute or the tag.
 */

/** A block's own tags (`<tag`, `</tag`, in any case and spacing): the ones its text must not hold. */
export const tagsOf = (tag: string) => new RegExp(`<(\\s*\\/?\\s*${tag})`, "gi");

/** Text that cannot open or close a block of `tags`: they are written `&lt;tag`. */
export const neutralised = (text: string, tags: RegExp): string => text.replace(tags, "&lt;$1");

/** An attribute's value that cannot end it, its tag or its block: no quote, no line break, no tag. */
export const attribute = (value: string, tags: RegExp): string => neutralised(value, tags).replace(/"/g, "'").replace(/\s+/g, " ");
