// SPDX-License-Identifier: Apache-2.0
/// The help text `defaults help` prints, which usage errors print to standard output.
let helpText = """
    Command line interface to a user's defaults.
    Syntax:

    'defaults' [-currentHost | -host <hostname>] followed by one of the following:

      read                                 shows all defaults
      read <domain>                        shows defaults for given domain
      read <domain> <key>                  shows defaults for given domain, key

      read-type <domain> <key>             shows the type for the given domain, key

      write <domain> <domain_rep>          writes domain (overwrites existing)
      write <domain> <key> <value>         writes key for domain

      rename <domain> <old_key> <new_key>  renames old_key to new_key

      delete <domain>                      deletes domain
      delete <domain> <key>                deletes key in domain

      import <domain> <path to plist>      writes the plist at path to domain
      import <domain> -                    writes a plist from stdin to domain
      export <domain> <path to plist>      saves domain as a binary plist to path
      export <domain> -                    writes domain as an xml plist to stdout
      domains                              lists all domains
      find <word>                          lists all entries containing word
      help                                 print this help

    <domain> is ( <domain_name> | -globalDomain | -g | NSGlobalDomain )
             or a path to a file (an argument with a '/'), with or without '.plist'

    <value> is one of:
      <value_rep>
      -string <string_value>
      -data <hex_digits>
      -int[eger] <integer_value>
      -float  <floating-point_value>
      -bool[ean] (true | false | yes | no)
      -date <date_rep>
      -array <value1> <value2> ...
      -array-add <value1> <value2> ...
      -dict <key1> <value1> <key2> <value2> ...
      -dict-add <key1> <value1> ...

    Beyond macOS:
      read -format <format> ...            prints openstep, xml, json or binary
      write <domain> <key> <value> -- <key> <value> ...
                                           writes several keys as one change
      write -force <domain> ...            writes even what the domain's schema forbids
      export -format <format> <domain> <path | ->
                                           in openstep, xml, json or binary
      watch [<domain> [<key>]]             prints each change as it happens
      watch -effective [-suite <domain>]... <domain> [<key>]
                                           prints each change of the value the app reads
      browse [<domain>]                    browses and edits every domain and layer, live
      explain [-suite <domain>]... <domain> <key>
                                           shows where the value comes from
      describe <domain> [<key>]            shows what the domain's keys are for
      fleet write -forced|-default [-group <name> | -host <id>] [-wait] <domain> <key> <value>
                                           sets a fleet-managed key in etcd
      fleet read|delete -forced|-default [-group <name> | -host <id>] <domain> [<key>]
                                           shows or removes a fleet-managed domain or key
      fleet list [-forced|-default] [-all | -group <name> | -host <id>]
                                           lists the fleet-managed domains
      fleet hosts [-group <name> | -host <id>] [-behind] [-format text|json]
                                           lists the fleet's live hosts and how far each is
      fleet wait [-timeout <s>] [-group <name> | -host <id>] <revision>
                                           waits until the live hosts have applied a revision
      fleet status                         shows this host's fleet state, from its prefsd
      migrate [-from foundation | gnustep | dconf] [-overwrite] [-dry-run] [<domain>...]
                                           adopts settings from Foundation, GNUstep or dconf
      completion (bash | zsh | fish)       prints a shell completion script
      man                                  prints this manual page (roff)
      -keypath <key path>                  in place of <key> for read, read-type, write, delete:
                                           a path into nested values such as Window.Frame.0
                                           ("\\." is a dot inside a key)
      --version                            prints the version

    Preferences live in $PREFERENCES_HOME (default ~/.config/preferences); see 'defaults man'.

    """
