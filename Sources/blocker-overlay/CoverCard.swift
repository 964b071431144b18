import BlockerCore

/// The card in the middle of a cover: what is covered, why, the balance, and
/// (for an empty balance) the honor-system form, (for a pause) the countdown
/// and its answers, (while a pass is left) the pass's button. One per
/// monitor; only the cover that takes the keyboard shows what is answered.
final class CoverCard {
    let root = Stack(.column, spacing: 10, style: "card")
    private let eyebrow = Label("blocker", style: "eyebrow")
    private let headline = Label(style: "app")
    private let reason = Label(style: "reason")
    private let balance = Label(style: "balance")
    private let footnote = Label(style: "footnote")
    let form = EarnFormView(heading: tr("Earn more time"), action: tr("Log"))
    let pause = PauseView()
    let pass = PassView()
    /// What the card shows now, to tell a new pause or pass offer from a tick of the countdown.
    private var shown: OverlayCard?

    var exercises: Choice { form.exercises }
    var reps: Entry { form.reps }
    /// Enter in the reps field, or the Log button.
    var onLog: (() -> Void)? {
        get { form.onSubmit }
        set { form.onSubmit = newValue }
    }
    /// The reps text or the exercise changed.
    var onEdit: (() -> Void)? {
        get { form.onEdit }
        set { form.onEdit = newValue }
    }

    init() {
        root.center()
        root.setMinimumSize(width: 560, height: -1)
        root.add(eyebrow)
        root.add(headline)
        root.add(reason)
        root.add(balance)
        root.add(footnote)
        root.add(form.root)
        root.add(pause.root)
        root.add(pass.root)
    }

    /// Fills in the words; `withForm` shows what is answered (the card taking
    /// the keyboard): the earn form, the pause's answers, the pass.
    func show(_ card: OverlayCard, withForm: Bool) {
        let previous = shown
        shown = card
        headline.text = card.headline
        reason.text = card.reason
        balance.text = card.balance ?? ""
        balance.isVisible = card.balance != nil
        // What is answered is on one screen only; the others say where.
        let elsewhere = withForm ? nil
            : card.offersEarning ? tr("Log your reps on the other screen.")
            : card.pause != nil ? tr("Answer on the other screen.") : nil
        let note = card.footnote ?? elsewhere
        footnote.text = note ?? ""
        footnote.isVisible = note != nil
        form.root.isVisible = withForm && card.offersEarning

        if card.pause != nil { root.addStyleClass("pausing") } else { root.removeStyleClass("pausing") }
        pause.root.isVisible = card.pause != nil
        var newPause = false
        if let now = card.pause {
            newPause = previous?.pause.map { $0.group != now.group || $0.until != now.until } ?? true
            if newPause { pause.reset() }
            pause.show(now, withAnswers: withForm)
        }
        pass.root.isVisible = withForm && card.pass != nil
        if let offer = card.pass {
            if previous?.pass?.group != offer.group { pass.reset() }
            pass.show(offer)
        }
        let partsChanged = previous.map { ($0.pause == nil) != (card.pause == nil) || $0.offersEarning != card.offersEarning }
        if withForm, newPause || partsChanged == true { focusFirstField() }
    }

    /// A new showing: empty form and answers, the keyboard as `focusFirstField` says.
    func reset() {
        form.reset()
        pause.reset()
        pass.reset()
        focusFirstField()
    }

    /// The field to type into (the reps, "why now?"), else none: a field left
    /// focused while hidden would take the keys (Tab too), and a focused
    /// button would take a stray Enter (a pass used, an app sent away).
    private func focusFirstField() {
        if form.root.isVisible {
            form.reps.grabFocus()
        } else if pause.root.isVisible, pause.hasField {
            pause.focus()
        } else {
            root.clearWindowFocus()
        }
    }

    func setExercises(_ items: [(id: String, label: String)], keeping selected: String?) {
        form.setExercises(items, keeping: selected)
    }

    func setPreview(_ text: String?) { form.setPreview(text) }
    func setMessage(_ text: String, tone: MessageLine.Tone = .error) { form.setMessage(text, tone: tone) }
    func setBusy(_ busy: Bool) { form.setBusy(busy) }
    func selectReps() { form.selectReps() }
}

/// The honor-system form: the exercise, the reps, a button, and a line under
/// them. The cover's card holds one; so does the "Log exercise" window.
final class EarnFormView {
    let root = Stack(.column, spacing: 12, style: "form")
    let exercises = Choice()
    let reps = Entry(placeholder: tr("reps"), widthInCharacters: 6)
    private let button: Button
    /// Under the form: an error, a success, else what the reps earn, else the hint.
    private let statusLine = MessageLine(roomForTwoLines: true)
    private var message: (text: String, tone: Tone)?
    private var preview: String?
    /// What the line says with nothing else to say.
    private var hint: (text: String, tone: Tone) = (tr("Type your reps, then press Enter"), .note)

    /// Enter in the reps field, or the button.
    var onSubmit: (() -> Void)?
    /// The reps text or the exercise changed.
    var onEdit: (() -> Void)?

    init(heading: String, action: String) {
        button = Button(label: action)
        let heading = Label(heading, style: "form-heading")
        let row = Stack(.row, spacing: 12, style: "form-row")
        row.add(exercises)
        row.add(reps, expand: true)
        row.add(button)
        button.addStyleClass("log")
        reps.addStyleClass("reps")
        exercises.addStyleClass("exercise")
        root.add(heading)
        root.add(row)
        root.add(statusLine.label)

        reps.onEnter { [unowned self] in self.onSubmit?() }
        button.onClicked { [unowned self] in self.onSubmit?() }
        reps.onChanged { [unowned self] in self.onEdit?() }
        exercises.onChanged { [unowned self] in self.onEdit?() }
        refreshStatusLine()
    }

    func setExercises(_ items: [(id: String, label: String)], keeping selected: String?) {
        exercises.setItems(items)
        if let selected { exercises.select(id: selected) }
        // With one exercise (or none known) there is nothing to choose.
        exercises.isVisible = items.count > 1
    }

    /// Empties the form for a new showing and puts the keyboard focus in the reps field.
    func reset() {
        reps.text = ""
        message = nil
        preview = nil
        refreshStatusLine()
        setBusy(false)
        reps.grabFocus()
    }

    /// What the typed reps would earn; editing also clears an old message.
    func setPreview(_ text: String?) {
        preview = text
        message = nil
        refreshStatusLine()
    }

    typealias Tone = MessageLine.Tone

    /// A message under the form: an error in red, a success in green.
    func setMessage(_ text: String, tone: Tone = .error) {
        message = (text, tone)
        refreshStatusLine()
    }

    /// What the line says when there is no message and no preview.
    func setHint(_ text: String, tone: Tone = .note) {
        hint = (text, tone)
        refreshStatusLine()
    }

    private func refreshStatusLine() {
        let (text, tone) = message ?? (preview.map { ($0, Tone.note) } ?? hint)
        statusLine.set(text, tone: tone)
    }

    /// While an Earn call is out: no second one.
    func setBusy(_ busy: Bool) {
        reps.isSensitive = !busy
        button.isSensitive = !busy
        exercises.isSensitive = !busy
    }

    /// After a refusal: focus and select the field, so typing again replaces it.
    func selectReps() {
        reps.grabFocus()
        reps.selectAll()
    }
}

/// The look: a dark opaque pane, a centered card, large clear type. The pane
/// has no alpha: on a compositing desktop a translucent one lets the blocked
/// app (its text, its video) show through, and the cover must replace it.
enum CoverStyle {
    static let css = """
    window.blocker-cover { background-color: rgb(12, 14, 28); }
    .card {
        background-color: rgba(27, 31, 52, 0.97);
        border-radius: 28px;
        border: 1px solid rgba(255, 255, 255, 0.10);
        box-shadow: 0 24px 64px rgba(0, 0, 0, 0.55);
        padding: 44px 60px 40px 60px;
        font-family: "DejaVu Sans", "Cantarell", sans-serif;
    }
    .eyebrow { color: #8b93c9; font-size: 14px; font-weight: bold; letter-spacing: 4px; }
    .app { color: #ffffff; font-size: 46px; font-weight: bold; margin-top: 6px; }
    .reason { color: #ffb38a; font-size: 26px; }
    .balance { color: #c0c6ea; font-size: 18px; margin-top: 4px; }
    .footnote { color: #8b93c9; font-size: 15px; margin-top: 14px; }
    .form { margin-top: 22px; padding-top: 22px; border-top: 1px solid rgba(255, 255, 255, 0.10); }
    .form-heading { color: #e6e9ff; font-size: 20px; font-weight: bold; }
    .form-row { margin-top: 4px; }
    .form-row combobox button, .form-row entry, .form-row button.log {
        font-size: 20px; min-height: 46px; border-radius: 12px;
    }
    .form-row entry {
        background-color: #0f1224; color: #ffffff; caret-color: #ffffff;
        border: 2px solid #3b4270; padding: 0 14px; box-shadow: none;
    }
    .form-row entry:focus { border-color: #7aa2f7; }
    .form-row combobox button {
        background-image: none; background-color: #262b4a; color: #e6e9ff;
        border: 2px solid #3b4270; box-shadow: none; padding: 0 14px;
    }
    .form-row button.log {
        background-image: none; background-color: #7aa2f7; color: #0d1020; font-weight: bold;
        border: none; box-shadow: none; padding: 0 30px; text-shadow: none;
    }
    .form-row button.log:hover { background-color: #8fb3ff; }
    .form-row button.log:disabled { background-color: #4b5a8c; color: #1a1e36; }
    .pausing .reason { color: #c0c6ea; }
    .countdown { color: #ffffff; font-size: 120px; font-weight: bold; font-feature-settings: "tnum"; margin: 8px 0; }
    .answers { margin-top: 6px; }
    .answers entry.why, .answer-row button, button.use-pass {
        font-size: 20px; min-height: 46px; border-radius: 12px; box-shadow: none; text-shadow: none;
    }
    .answers entry.why {
        background-color: #0f1224; color: #ffffff; caret-color: #ffffff;
        border: 2px solid #3b4270; padding: 0 14px;
    }
    .answers entry.why:focus { border-color: #7aa2f7; }
    .answer-row button, button.use-pass {
        background-image: none; background-color: #262b4a; color: #e6e9ff;
        border: 2px solid #3b4270; padding: 0 30px;
    }
    .answer-row button:focus, button.use-pass:focus { border-color: #7aa2f7; }
    .answer-row button.open { background-color: #7aa2f7; color: #0d1020; font-weight: bold; border-color: #7aa2f7; }
    .answer-row button.open:focus { border-color: #ffffff; }
    .answer-row button:disabled { background-color: #1d2140; color: #5d6590; border-color: #2a2f52; }
    .pass { margin-top: 18px; }
    button.use-pass:disabled { color: #5d6590; }
    .message { font-size: 16px; }
    .message.error { color: #ff8a95; }
    .message.success { color: #9ee6a4; }
    .message.note { color: #8b93c9; }
    window.blocker-log { background-color: rgb(27, 31, 52); }
    .log-card { padding: 26px 36px 18px 36px; font-family: "DejaVu Sans", "Cantarell", sans-serif; }
    .log-card .form { margin-top: 0; padding-top: 0; border-top: none; }
    """
}
