// STUB of resource:///org/gnome/shell/ui/main.js for itest-gnome-esm-stub.sh:
// GNOME 45+ cannot run here, so its entry point is loaded against this.
import {StubSignals} from './signals.js';

export const sessionMode = Object.assign(new StubSignals(), {isLocked: false, currentMode: 'user'});
export const screenShield = null;
export const layoutManager = Object.assign(new StubSignals(), {monitors: [], primaryIndex: 0});
