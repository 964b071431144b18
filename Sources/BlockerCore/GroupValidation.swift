/// Validation of `[[group]]` and `[[group.schedule]]`, and of what groups must agree on.
extension Config {
    static func groups(_ root: ConfigSection) throws(ConfigError) -> [AppGroup] {
        guard let sections = try root.tableArray(ConfigKeys.group) else { return [] }
        var groups: [AppGroup] = []
        for section in sections {
            let group = try AppGroup(section)
            if let other = groups.firstIndex(where: { $0.name.lowercased() == group.name.lowercased() }) {
                throw section.error("name", tr("duplicate group name \"{name}\" (group[{other}] is \"{value}\"); group names must differ, ignoring case", ["name": "\(group.name)", "other": "\(other)", "value": "\(groups[other].name)"]))
            }
            groups.append(group)
        }
        try rejectMeteredConflicts(groups, root: root)
        return groups
    }

    /// A window is either metered or not: the same app (or site) cannot be both.
    private static func rejectMeteredConflicts(_ groups: [AppGroup], root: ConfigSection) throws(ConfigError) {
        try rejectMeteredConflicts(groups, root: root, key: "apps", kind: "app", names: \.apps)
        try rejectMeteredConflicts(groups, root: root, key: "sites", kind: "site") { $0.sites.map(\.description) }
    }

    private static func rejectMeteredConflicts(_ groups: [AppGroup], root: ConfigSection, key: String, kind: String,
                                               names: (AppGroup) -> [String]) throws(ConfigError) {
        var firstGroup: [String: Int] = [:]  // name → index of the first group naming it
        for (index, group) in groups.enumerated() {
            for (nameIndex, name) in names(group).enumerated() {
                guard let otherIndex = firstGroup[name] else {
                    firstGroup[name] = index
                    continue
                }
                let other = groups[otherIndex]
                guard other.metered != group.metered else { continue }
                func describe(_ group: AppGroup, _ index: Int) -> String {
                    "group[\(index)] \"\(group.name)\" (metered = \(group.metered))"
                }
                throw root.error("group[\(index)].\(key)[\(nameIndex)]",
                    tr("{kind} \"{name}\" is in {value} and in {valueb}; a window is either metered or not: keep the {kind} in one group, or give both groups the same metered", ["kind": "\(kind)", "name": "\(name)", "value": "\(describe(other, otherIndex))", "valueb": "\(describe(group, index))"]))
            }
        }
    }
}

extension AppGroup {
    init(_ group: ConfigSection) throws(ConfigError) {
        try group.rejectUnknownKeys(known: ConfigKeys.group.keys)

        let nameExample = "name = \"social\""
        guard let name = try group.string("name", expected: tr("a string"), example: nameExample) else {
            throw group.error("name", tr("every group needs a name (example: {example})", ["example": "\(nameExample)"]))
        }
        guard !name.isEmpty else { throw group.error("name", tr("the name is empty (example: {example})", ["example": "\(nameExample)"])) }

        let appsExample = "apps = [\"discord\", \"org.telegram.desktop\"]"
        let sitesExample = "sites = [\"youtube.com\", \"*.twitch.tv\"]"
        let apps = try group.stringArray("apps", expected: tr("an array of strings"), example: appsExample)
        let siteTexts = try group.stringArray("sites", expected: tr("an array of sites"), example: sitesExample)
        guard apps != nil || siteTexts != nil else {
            throw group.error("apps", tr("every group needs apps (the app ids, WM_CLASS or program names it covers, example: {apps_example}) or sites (websites, with blocker's browser extension, example: {sites_example})",
                                           ["apps_example": appsExample, "sites_example": sitesExample]))
        }
        if let apps, apps.isEmpty {
            throw group.error("apps", tr("the list is empty; name at least one app (example: {example})", ["example": "\(appsExample)"]))
        }
        if let empty = apps?.firstIndex(of: "") {
            throw group.error("apps[\(empty)]", tr("the app name is empty (example: {example})", ["example": "\(appsExample)"]))
        }
        if let siteTexts, siteTexts.isEmpty {
            throw group.error("sites", tr("the list is empty; name at least one site (example: {example})", ["example": "\(sitesExample)"]))
        }
        var sites: [SitePattern] = []
        for (index, text) in (siteTexts ?? []).enumerated() {
            guard let site = SitePattern(text) else {
                throw group.error("sites[\(index)]", tr("\"{value}\" is not a site: give a domain such as youtube.com, or *.twitch.tv for it and every site under it; no scheme, path or port (example: {example})", ["value": "\(text.prefix(200))", "example": "\(sitesExample)"]))
            }
            if let first = sites.firstIndex(of: site) {
                throw group.error("sites[\(index)]", tr("\"{site}\" is listed twice (sites[{first}]); keep one (example: {example})", ["site": "\(site)", "first": "\(first)", "example": "\(sitesExample)"]))
            }
            sites.append(site)
        }

        let titlesExample = "titles = [\"YouTube\", \"Twitch\"]"
        let titleSources = try group.stringArray("titles", expected: tr("an array of regexes"), example: titlesExample)
        var titles: [TitlePattern] = []
        for (index, source) in (titleSources ?? []).enumerated() {
            do {
                titles.append(try TitlePattern(source))
            } catch {
                switch error {
                case .tooLong(let characters):
                    // Not echoed: it may be a megabyte.
                    throw group.error("titles[\(index)]", tr("this regex is {characters} characters long, more than {maximumLength}; a title regex names what to look for (example: {example})", ["characters": "\(characters)", "maximumLength": "\(TitlePattern.maximumLength)", "example": "\(titlesExample)"]))
                case .invalid(let reason):
                    throw group.error("titles[\(index)]", tr("\"{source}\" is not a valid regex: {reason} (example: {example})", ["source": "\(source)", "reason": "\(reason)", "example": "\(titlesExample)"]))
                }
            }
        }

        let metered = try group.bool("metered", example: "metered = false") ?? true

        let limitExample = "daily-limit = \"1h\""
        var dailyLimit: Milliseconds?
        if let (text, ms) = try group.duration("daily-limit", example: limitExample) {
            guard ms > 0 && ms <= 86_400_000 else {
                throw group.error("daily-limit", tr("\"{text}\" is out of range: daily-limit must be more than 0 and at most 24h (example: {example})", ["text": "\(text)", "example": "\(limitExample)"]))
            }
            dailyLimit = ms
        }

        let opensExample = "opens-per-day = 5"
        var opensPerDay: Int?
        if let count = try group.wholeNumber("opens-per-day", expected: tr("a whole number of opens"), example: opensExample) {
            guard (1...1000).contains(count) else {
                throw group.error("opens-per-day", tr("{count} is out of range: opens-per-day must be from 1 to 1000; leave it out for no cap (example: {example})", ["count": "\(count)", "example": "\(opensExample)"]))
            }
            opensPerDay = Int(count)
        }

        var schedules: [Schedule] = []
        for section in try group.tableArray(ConfigKeys.schedule) ?? [] {
            schedules.append(try Schedule(section))
        }
        var pause: PauseSettings?
        if let section = try group.table(ConfigKeys.groupPause) { pause = try PauseSettings(section) }

        self.init(name: name, apps: apps ?? [], titles: titles, sites: sites, metered: metered, dailyLimit: dailyLimit,
                  schedules: schedules, opensPerDay: opensPerDay, pause: pause)
    }
}

extension Schedule {
    init(_ schedule: ConfigSection) throws(ConfigError) {
        try schedule.rejectUnknownKeys(known: ConfigKeys.schedule.keys)

        var days = Weekdays.all
        if let text = try schedule.string("days", expected: tr("a string of days"), example: "days = \"Mon-Fri\"") {
            switch Weekdays.parse(text) {
            case .success(let parsed): days = parsed
            case .failure(let unknown):
                throw schedule.error("days", tr("unknown day \"{word}\" (use Mon Tue Wed Thu Fri Sat Sun, a range like Mon-Fri, a list like Sat,Sun, or daily / weekdays / weekends)", ["word": "\(unknown.word)"]))
            }
        }

        let from = try schedule.timeOfDay("from", example: "from = \"22:30\"")
        let to = try schedule.timeOfDay("to", example: "to = \"07:00\"")
        let allDay = try schedule.bool("all-day", example: "all-day = true") ?? false
        let windowExample = "from = \"22:30\" and to = \"07:00\", or all-day = true"

        if allDay && (from != nil || to != nil) {
            throw schedule.error("all-day", tr("all-day = true cannot be combined with from or to; keep either all-day = true or from/to"))
        }
        switch (from, to) {
        case (nil, nil):
            guard allDay else { throw schedule.error(nil, tr("a schedule needs a window: {example}", ["example": "\(windowExample)"])) }
            self.init(days: days, span: .allDay)
        case (.some(let from), .some(let to)):
            guard from.minutes != to.minutes else {
                throw schedule.error("to", tr("from and to are both \"{text}\", which is no window; to block the whole day, use all-day = true", ["text": "\(to.text)"]))
            }
            self.init(days: days, span: .between(from: from.minutes, to: to.minutes))
        case (.some(let from), nil):
            throw schedule.error("to", tr("from = \"{text}\" needs a to (example: to = \"07:00\")", ["text": "\(from.text)"]))
        case (nil, .some(let to)):
            throw schedule.error("from", tr("to = \"{text}\" needs a from (example: from = \"22:30\")", ["text": "\(to.text)"]))
        }
    }
}

