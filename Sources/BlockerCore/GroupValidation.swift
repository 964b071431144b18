/// Validation of `[[group]]` and `[[group.schedule]]`, and of what groups must agree on.
extension Config {
    static func groups(_ root: ConfigSection) throws(ConfigError) -> [AppGroup] {
        guard let sections = try root.tableArray(ConfigKeys.group) else { return [] }
        var groups: [AppGroup] = []
        for section in sections {
            let group = try AppGroup(section)
            if let other = groups.firstIndex(where: { $0.name.lowercased() == group.name.lowercased() }) {
                throw section.error("name", "duplicate group name \"\(group.name)\" (group[\(other)] is "
                    + "\"\(groups[other].name)\"); group names must differ, ignoring case")
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
                    "\(kind) \"\(name)\" is in \(describe(other, otherIndex)) and in \(describe(group, index)); "
                    + "a window is either metered or not: keep the \(kind) in one group, "
                    + "or give both groups the same metered")
            }
        }
    }
}

extension AppGroup {
    init(_ group: ConfigSection) throws(ConfigError) {
        try group.rejectUnknownKeys(known: ConfigKeys.group.keys)

        let nameExample = "name = \"social\""
        guard let name = try group.string("name", expected: "a string", example: nameExample) else {
            throw group.error("name", "every group needs a name (example: \(nameExample))")
        }
        guard !name.isEmpty else { throw group.error("name", "the name is empty (example: \(nameExample))") }

        let appsExample = "apps = [\"discord\", \"org.telegram.desktop\"]"
        let sitesExample = "sites = [\"youtube.com\", \"*.twitch.tv\"]"
        let apps = try group.stringArray("apps", expected: "an array of strings", example: appsExample)
        let siteTexts = try group.stringArray("sites", expected: "an array of sites", example: sitesExample)
        guard apps != nil || siteTexts != nil else {
            throw group.error("apps", "every group needs apps (the app ids, WM_CLASS or program names it "
                + "covers, example: \(appsExample)) or sites (websites, with blocker's browser extension, "
                + "example: \(sitesExample))")
        }
        if let apps, apps.isEmpty {
            throw group.error("apps", "the list is empty; name at least one app (example: \(appsExample))")
        }
        if let empty = apps?.firstIndex(of: "") {
            throw group.error("apps[\(empty)]", "the app name is empty (example: \(appsExample))")
        }
        if let siteTexts, siteTexts.isEmpty {
            throw group.error("sites", "the list is empty; name at least one site (example: \(sitesExample))")
        }
        var sites: [SitePattern] = []
        for (index, text) in (siteTexts ?? []).enumerated() {
            guard let site = SitePattern(text) else {
                throw group.error("sites[\(index)]", "\"\(text.prefix(200))\" is not a site: give a domain "
                    + "such as youtube.com, or *.twitch.tv for it and every site under it; no scheme, path or "
                    + "port (example: \(sitesExample))")
            }
            if let first = sites.firstIndex(of: site) {
                throw group.error("sites[\(index)]", "\"\(site)\" is listed twice (sites[\(first)]); "
                    + "keep one (example: \(sitesExample))")
            }
            sites.append(site)
        }

        let titlesExample = "titles = [\"YouTube\", \"Twitch\"]"
        let titleSources = try group.stringArray("titles", expected: "an array of regexes", example: titlesExample)
        var titles: [TitlePattern] = []
        for (index, source) in (titleSources ?? []).enumerated() {
            do {
                titles.append(try TitlePattern(source))
            } catch {
                switch error {
                case .tooLong(let characters):
                    // Not echoed: it may be a megabyte.
                    throw group.error("titles[\(index)]", "this regex is \(characters) characters long, more "
                        + "than \(TitlePattern.maximumLength); a title regex names what to look for "
                        + "(example: \(titlesExample))")
                case .invalid(let reason):
                    throw group.error("titles[\(index)]", "\"\(source)\" is not a valid regex: \(reason) "
                        + "(example: \(titlesExample))")
                }
            }
        }

        let metered = try group.bool("metered", example: "metered = false") ?? true

        let limitExample = "daily-limit = \"1h\""
        var dailyLimit: Milliseconds?
        if let (text, ms) = try group.duration("daily-limit", example: limitExample) {
            guard ms > 0 && ms <= 86_400_000 else {
                throw group.error("daily-limit", "\"\(text)\" is out of range: daily-limit must be more than 0 "
                    + "and at most 24h (example: \(limitExample))")
            }
            dailyLimit = ms
        }

        let opensExample = "opens-per-day = 5"
        var opensPerDay: Int?
        if let count = try group.wholeNumber("opens-per-day", expected: "a whole number of opens", example: opensExample) {
            guard (1...1000).contains(count) else {
                throw group.error("opens-per-day", "\(count) is out of range: opens-per-day must be from 1 to 1000; "
                    + "leave it out for no cap (example: \(opensExample))")
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
        if let text = try schedule.string("days", expected: "a string of days", example: "days = \"Mon-Fri\"") {
            switch Weekdays.parse(text) {
            case .success(let parsed): days = parsed
            case .failure(let unknown):
                throw schedule.error("days", "unknown day \"\(unknown.word)\" (use Mon Tue Wed Thu Fri Sat Sun, "
                    + "a range like Mon-Fri, a list like Sat,Sun, or daily / weekdays / weekends)")
            }
        }

        let from = try schedule.timeOfDay("from", example: "from = \"22:30\"")
        let to = try schedule.timeOfDay("to", example: "to = \"07:00\"")
        let allDay = try schedule.bool("all-day", example: "all-day = true") ?? false
        let windowExample = "from = \"22:30\" and to = \"07:00\", or all-day = true"

        if allDay && (from != nil || to != nil) {
            throw schedule.error("all-day", "all-day = true cannot be combined with from or to; "
                + "keep either all-day = true or from/to")
        }
        switch (from, to) {
        case (nil, nil):
            guard allDay else { throw schedule.error(nil, "a schedule needs a window: \(windowExample)") }
            self.init(days: days, span: .allDay)
        case (.some(let from), .some(let to)):
            guard from.minutes != to.minutes else {
                throw schedule.error("to", "from and to are both \"\(to.text)\", which is no window; "
                    + "to block the whole day, use all-day = true")
            }
            self.init(days: days, span: .between(from: from.minutes, to: to.minutes))
        case (.some(let from), nil):
            throw schedule.error("to", "from = \"\(from.text)\" needs a to (example: to = \"07:00\")")
        case (nil, .some(let to)):
            throw schedule.error("from", "to = \"\(to.text)\" needs a from (example: from = \"22:30\")")
        }
    }
}

