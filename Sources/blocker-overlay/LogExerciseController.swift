import BlockerBus
import BlockerCore
import BlockerSystem

/// `blocker-overlay --earn`: the "Log exercise" window. The cover's earn form
/// in an ordinary window, calling blockerd's `Earn`; it stays open for another
/// entry until Escape or close. It takes no part in covering: it follows no
/// signal and owns no bus name, so it runs beside the cover service, and its
/// own app id keeps the probes from taking it for the cover.
///
/// It asks blockerd only when the user acts (at start, on Earn), with calls
/// that wait at most 3 s; `LogExerciseForm` decides when and what it says.
final class LogExerciseController {
    private let environment: [String: String]
    private let log: OverlayLog
    private var client: BlockerClient?
    private var model = LogExerciseForm()
    /// The request id of an earning not answered yet (a retry keeps it).
    private var retry = EarnRetry()

    private let card = Stack(.column, spacing: 10, style: "log-card")
    private let balance = Label(style: "balance")
    private let form = EarnFormView(heading: tr("Earn time"), action: tr("Earn"))
    private let window: PlainWindow

    init(environment: [String: String], log: OverlayLog) {
        self.environment = environment
        self.log = log
        card.add(balance)
        card.add(form.root)
        card.setMinimumSize(width: 460, height: -1)
        window = PlainWindow(title: LogExercise.title, icon: LogExercise.iconName, style: "blocker-log", content: card)
        window.onClose = { Gtk.quit() }
        form.onSubmit = { [unowned self] in self.earn() }
        form.onEdit = { [unowned self] in self.updatePreview() }
    }

    func start() {
        window.show()
        refreshStatus()
        form.reset()
    }

    // MARK: blockerd

    /// The client, connecting first if needed (no session bus yet at start is
    /// said in the window, and tried again on the next Earn).
    private func connectedClient() throws(BusFailure) -> BlockerClient {
        if let client { return client }
        let fresh = try BlockerClient.connect(environment: environment)
        fresh.callTimeoutMicroseconds = 3_000_000
        client = fresh
        return fresh
    }

    /// Asks `Status` for the exercises and the balance, and shows them.
    private func refreshStatus() {
        do {
            let status = try connectedClient().status()
            let changed = status.exercises != model.exercises
            model.statusArrived(exercises: status.exercises, balanceMs: status.balanceMs)
            if changed {
                log.info("exercises from blockerd: "
                    + (status.exercises.isEmpty ? "none" : status.exercises.map(\.name).joined(separator: ", ")))
            }
        } catch {
            log.warning("cannot read blockerd's Status: \(error)")
            model.unreachable(error.description)
        }
        showModel()
    }

    private func showModel() {
        let chosen = form.exercises.selectedID
        form.setExercises(model.exercises.map { (id: $0.name, label: RepsInput.label($0)) }, keeping: chosen)
        balance.text = model.balanceLine
        balance.isVisible = !model.balanceLine.isEmpty
        let hint = model.hint
        form.setHint(hint.text, tone: hint.isProblem ? .error : .note)
        log.info("hint: \(hint.text)")
    }

    /// A message under the form, also in the log (what the window said, for the journal and the tests).
    private func say(_ text: String, tone: EarnFormView.Tone = .error) {
        form.setMessage(text, tone: tone)
        log.info("says: \(text)")
    }

    // MARK: the form

    private func updatePreview() {
        let exercise = model.exercises.first { $0.name == form.exercises.selectedID } ?? model.exercises.first
        form.setPreview(RepsInput.preview(form.reps.text, exercise: exercise, allowed: BlockerLimits.reps))
    }

    private func earn() {
        if model.needsStatus { refreshStatus() }
        if let why = model.unreachable {
            say(why)
            form.selectReps()
            return
        }
        let request: EarnRequest
        switch model.request(reps: form.reps.text, chosen: form.exercises.selectedID, allowed: BlockerLimits.reps) {
        case let .success(made):
            request = made
        case let .failure(problem):
            say(problem.description)
            form.selectReps()
            return
        }
        form.setBusy(true)
        let requestID = retry.id(for: request, new: EarnRequestID.make)
        do {
            let result = try connectedClient().earnOnce(requestID: requestID, exercise: request.exercise, reps: request.reps)
            retry.answered()
            // Sensitive again before the focus goes back: an insensitive field refuses it.
            form.setBusy(false)
            log.info("logged \(request.reps) \(request.exercise.isEmpty ? "reps" : request.exercise): "
                + "earned \(result.earnedMs) ms, balance \(result.balanceMs) ms")
            let line = model.earned(earnedMs: result.earnedMs, balanceMs: result.balanceMs)
            balance.text = model.balanceLine
            balance.isVisible = true
            // Emptied for the next entry; the message goes after, since editing clears it.
            form.reps.text = ""
            say(line, tone: .success)
            form.reps.grabFocus()
        } catch {
            form.setBusy(false)
            log.warning("Earn failed: \(error)")
            switch error {
            case .notRunning, .transport:
                model.unreachable(error.description)
                showModel()
            case .refused(name: BusErrorName.unknownExercise.rawValue, _):
                // A reload changed [earn] since the window asked: take the new list.
                retry.answered()
                refreshStatus()
            case .refused:
                retry.answered()
            case .untrustedOwner:
                break
            }
            say(error.description)
            form.selectReps()
        }
    }
}
