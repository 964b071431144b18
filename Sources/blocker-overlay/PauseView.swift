import BlockerCore

/// The pause's part of the card: a big countdown, and on the cover that takes
/// the keyboard the "why now?" line and the two answers. "Not now" is there at
/// once; "Open" waits for the countdown (blockerd refuses it before).
final class PauseView {
    let root = Stack(.column, spacing: 14, style: "pause")
    private let countdown = Label(style: "countdown")
    private let answers = Stack(.column, spacing: 12, style: "answers")
    // GTK 3 hides a focused entry's placeholder, and this one has the focus: a label says what it asks.
    private let whyLabel = Label("Why now? (optional, recorded)", style: "footnote")
    private let why = Entry(placeholder: tr("Why now?"), widthInCharacters: 30, purpose: .words)
    private let notNow = Button(label: tr("Not now"))
    private let open = Button(label: tr("Open"))
    private let line = MessageLine(roomForTwoLines: true)
    private var canOpen = false
    private var busy = false

    /// "Not now" (false) or "Open" (true): a button, or Enter in the field once "Open" is enabled.
    var onAnswer: ((_ open: Bool) -> Void)?
    /// The "why now?" text changed.
    var onReasonEdited: (() -> Void)?

    init() {
        let row = Stack(.row, spacing: 14, style: "answer-row")
        row.add(notNow, expand: true)
        row.add(open, expand: true)
        notNow.addStyleClass("not-now")
        open.addStyleClass("open")
        why.addStyleClass("why")
        answers.add(whyLabel)
        answers.add(why)
        answers.add(row)
        answers.add(line.label)
        root.add(countdown)
        root.add(answers)

        notNow.onClicked { [unowned self] in self.onAnswer?(false) }
        open.onClicked { [unowned self] in self.onAnswer?(true) }
        why.onEnter { [unowned self] in
            if self.canOpen && !self.busy { self.onAnswer?(true) }
        }
        why.onChanged { [unowned self] in self.onReasonEdited?() }
    }

    /// The countdown everywhere; the field and the buttons with `withAnswers`.
    func show(_ pause: OverlayCard.Pause, withAnswers: Bool) {
        countdown.text = String(pause.secondsLeft)
        canOpen = pause.canOpen
        why.isVisible = pause.asksReason
        whyLabel.isVisible = pause.asksReason
        answers.isVisible = withAnswers
        refreshButtons()
    }

    /// A new pause: empty field, no message, both answers possible again.
    func reset() {
        why.text = ""
        line.clear()
        busy = false
        refreshButtons()
    }

    /// Whether the "why now?" field is shown (a pause that asks, on the cover taking the keyboard).
    var hasField: Bool { answers.isVisible && why.isVisible }

    func focus() { why.grabFocus() }

    var reason: String {
        get { why.text }
        set { why.text = newValue }
    }

    /// While an AnswerPause call is out: no second one.
    func setBusy(_ busy: Bool) {
        self.busy = busy
        refreshButtons()
    }

    func setMessage(_ text: String, tone: MessageLine.Tone = .error) { line.set(text, tone: tone) }

    private func refreshButtons() {
        notNow.isSensitive = !busy
        open.isSensitive = canOpen && !busy
        why.isSensitive = !busy
    }
}

/// The emergency pass's button and blockerd's answer under it.
final class PassView {
    let root = Stack(.column, spacing: 8, style: "pass")
    private let button = Button(label: "")
    private let line = MessageLine(roomForTwoLines: false)

    /// The button.
    var onUse: (() -> Void)?

    init() {
        button.addStyleClass("use-pass")
        button.center()
        root.add(button)
        root.add(line.label)
        button.onClicked { [unowned self] in self.onUse?() }
    }

    func show(_ offer: OverlayCard.PassOffer) {
        if button.label != offer.label { button.label = offer.label }
    }

    func reset() {
        line.clear()
        button.isSensitive = true
    }

    /// While a UsePass call is out, and after blockerd took it (the shield lifts next).
    func setBusy(_ busy: Bool) { button.isSensitive = !busy }

    func setMessage(_ text: String, tone: MessageLine.Tone) { line.set(text, tone: tone) }
}

/// A line under a form or the answers: an error in red, a success in green, a note in grey.
final class MessageLine {
    enum Tone: String { case error, success, note }
    let label = Label(style: "message")

    /// `roomForTwoLines`: the space is kept when empty, so a message does not move the card.
    init(roomForTwoLines: Bool) {
        if roomForTwoLines { label.setMinimumSize(width: -1, height: 44) }
        set("", tone: .note)
    }

    func set(_ text: String, tone: Tone) {
        label.text = text
        for style in [Tone.error, .success, .note] { label.removeStyleClass(style.rawValue) }
        label.addStyleClass(tone.rawValue)
    }

    func clear() { set("", tone: .note) }
}
