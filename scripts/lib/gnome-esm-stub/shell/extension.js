// STUB of resource:///org/gnome/shell/extensions/extension.js (GNOME 45+).
export class Extension {
    constructor(metadata) {
        this.metadata = metadata;
    }
}
