func benchSway(_ arguments: [String]) { print("sway bench: not written yet") }
