// STUB of resource:///org/gnome/shell/ui/main.js for itest-gnome-esm-stub.sh:
// GNOME 45+ cannot run here, so the ES-module entry points (blocker's
// extension, the test driver) are loaded against this.
import {StubSignals} from './signals.js';

export const sessionMode = Object.assign(new StubSignals(), {isLocked: false, currentMode: 'user'});
export const screenShield = null;
export const layoutManager = Object.assign(new StubSignals(), {
    monitors: [], primaryIndex: 0, _startingUp: true,
    uiGroup: {get_children: () => []},
});
export const overview = {
    visible: true,
    hide() {
        this.visible = false;
    },
};
export const modalCount = 0;
export const actionMode = 1;
// What the test driver's SetExtensionEnabled asked for, in order.
export const extensionManager = {
    calls: [],
    _callExtensionEnable(uuid) {
        this.calls.push(['enable', uuid]);
        return Promise.resolve();
    },
    _callExtensionDisable(uuid) {
        this.calls.push(['disable', uuid]);
        return Promise.resolve();
    },
};
