func benchX11(_ arguments: [String]) { print("x11 bench: not written yet") }
