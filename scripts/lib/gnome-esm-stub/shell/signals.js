// STUB: GObject-style connect/disconnect/emit for the stub shell objects.
export class StubSignals {
    constructor() {
        this._handlers = new Map();
        this._next = 1;
    }

    connect(name, handler) {
        const id = this._next++;
        this._handlers.set(id, {name, handler});
        return id;
    }

    disconnect(id) {
        if (!this._handlers.delete(id))
            throw new Error(`stub: disconnect of unknown handler ${id}`);
    }

    emit(name, ...args) {
        for (const {name: n, handler} of [...this._handlers.values()])
            if (n === name)
                handler(this, ...args);
    }

    get handlerCount() {
        return this._handlers.size;
    }
}
