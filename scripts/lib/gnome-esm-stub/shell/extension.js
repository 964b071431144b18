// STUB of resource:///org/gnome/shell/extensions/extension.js (GNOME 45+),
// with the translations as the shell's ExtensionBase has them:
// initTranslations() binds metadata.json's gettext-domain to the locale/
// folder beside the extension, and gettext/ngettext read that domain.
import GLib from 'gi://GLib';
import {bindtextdomain} from 'gettext';

// The one extension loaded here (the shell finds the caller's from its file).
let domain = null;

export class Extension {
    constructor(metadata) {
        this.metadata = metadata;
    }

    initTranslations() {
        domain = this.metadata['gettext-domain'] ?? this.metadata.uuid;
        bindtextdomain(domain, GLib.build_filenamev([this.metadata.path, 'locale']));
    }
}

export function gettext(msgid) {
    return domain ? GLib.dgettext(domain, msgid) : msgid;
}

export function ngettext(msgid, plural, n) {
    if (domain)
        return GLib.dngettext(domain, msgid, plural, n);
    return n === 1 ? msgid : plural;
}
