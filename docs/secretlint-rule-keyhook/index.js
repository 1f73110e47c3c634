// A secretlint rule for keyhook API keys: kp_ and 64 lowercase hex digits, the last 8 of which
// are the CRC-32 of the first 59 characters (docs/keys.md, "Checksums").
//
//   npm install --save-dev secretlint ./docs/secretlint-rule-keyhook
//   cp docs/secretlint-rule-keyhook/.secretlintrc.json .   # or add the rule to yours
//   npx secretlint "**/*"
//
// Every match is reported (a key issued before checksums has 8 random digits at the end and
// still works), with whether its checksum is valid; the option `requireChecksum: true` reports
// only keys with a valid one. The message says where, never the key.
// `keyhook keys scan` says whether a match is a key of your database.

export const messages = {
    KEYHOOK_API_KEY: {
        en: () => "found a keyhook API key (checksum valid)",
    },
    KEYHOOK_API_KEY_NO_CHECKSUM: {
        en: () => "found a keyhook API key without a valid checksum (a key issued before checksums, or a token of the same shape)",
    },
};

// A longer run of hex digits is no key.
const PATTERN = /kp_[0-9a-f]{64}(?![0-9a-f])/g;

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) {
        c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    }
    return c >>> 0;
});

/** CRC-32 (IEEE) of an ASCII string. */
const crc32 = (text) => {
    let c = 0xffffffff;
    for (let i = 0; i < text.length; i++) {
        c = CRC_TABLE[(c ^ text.charCodeAt(i)) & 0xff] ^ (c >>> 8);
    }
    return (c ^ 0xffffffff) >>> 0;
};

/** kp_ + 64 lowercase hex, the last 8 the big-endian CRC-32 of the first 59 characters. */
export const hasValidChecksum = (token) =>
    /^kp_[0-9a-f]{64}$/.test(token) && crc32(token.slice(0, 59)).toString(16).padStart(8, "0") === token.slice(59);

export const creator = {
    messages,
    meta: {
        id: "secretlint-rule-keyhook",
        recommended: true,
        type: "scanner",
        supportedContentTypes: ["text"],
    },
    create(context, options = {}) {
        const t = context.createTranslator(messages);
        const requireChecksum = options.requireChecksum === true;
        return {
            file(source) {
                for (const match of source.content.matchAll(PATTERN)) {
                    const key = match[0];
                    const valid = hasValidChecksum(key);
                    if (requireChecksum && !valid) {
                        continue;
                    }
                    context.report({
                        message: t(valid ? "KEYHOOK_API_KEY" : "KEYHOOK_API_KEY_NO_CHECKSUM"),
                        range: [match.index, match.index + key.length],
                    });
                }
            },
        };
    },
};
